#include "grade.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "build_plan.h"
#include "datasets.h"
#include "device_line.h"
#include "exercise_grader.h"
#include "fatbin_resources.h"
#include "report_lines.h"
#include "resource_report.h"
#include "scoring.h"
#include "speed_grader.h"
#include "submission_build.h"
#include "text.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;

namespace {

std::string UtcTimestamp() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void Say(const GradeRequest& request, const std::string& line) {
  if (request.progress) request.progress(line);
}

// Reads the kernels' resources. GPU: off the default build's own device code, the code that runs
// (fatbin_resources.h), or not at all: a technique then unchecked is said so on the report. CPU
// backend: ptxas for the modelled GPU, which is also handed them for its occupancy API.
void ReadResources(GradeEnv& env, SubmissionBuilder& builder, const std::string& src_dir) {
  const BuildOutcome& build = env.builds[Flavour::kDefault];
  // On a GPU, only the code that runs says what it uses: no second compile stands in for it.
  if (!Traits(env.backend).models_the_gpu) {
    if (!build.ok) {
      env.resources_error = "the submission did not build";  // that failure is the verdict
      return;
    }
    if (std::optional<ResourceReport> own = ResourcesOfBuild(build.executable))
      env.resources = std::move(*own);
    else
      env.resources_error =
          "the kernels' resources could not be read off the build's own device "
          "code (a fault of the grader's)";
    return;
  }
  auto text = builder.ResourceReportText(src_dir, PtxDir(env));
  if (!text) {
    env.resources_error = text.error();
    return;
  }
  auto report = ParsePtxasReport(*text);
  if (!report) {
    env.resources_error = "nvcc's resource report could not be read: " + report.error();
    return;
  }
  env.resources = std::move(*report);
  if (Traits(env.backend).models_the_gpu) {
    env.kernels_json = env.work_dir + "/kernels.json";
    const Status written =
        WriteUntrustedFile(env.kernels_json, ToEmulatorJson(*env.resources).dump(1));
    if (!written) env.resources_error = written.error();
  }
}

DeviceInfo ProbeDevice(GradeEnv& env) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (!build.ok) return {};
  HarnessOptions options;
  options.exercise = env.spec.exercises.front().id;
  options.timeout_seconds = env.spec.limits.RunSeconds();
  return DeviceFromLine(
      RunHarness(env.runner, build.executable, env.work_dir + "/probe", options, {}).device);
}

SpeedMeasurement ToMeasurement(const SpeedOutcome& s) {
  SpeedMeasurement m;
  m.kind = s.kind;
  m.cause = s.cause;
  m.student_ms = s.student_ms;
  m.baseline_ms = s.baseline_ms;
  m.reference_ms = s.reference_ms;
  m.reference_baseline_ms = s.reference_baseline_ms;
  m.message = s.message;
  return m;
}

ExerciseResult GivenResult(const Exercise& ex, const ExerciseVerdict& v) {
  ExerciseResult r;
  r.id = ex.id;
  r.title = ex.title + " [given, not scored]";
  // Given code is shown as passed when its values were right, whatever its technique.
  r.status = v.cause == kTechniqueCause ? GradeStatus::kPassed : v.status;
  r.message = v.message;
  r.notes = v.notes;
  r.cause = v.cause;
  return r;
}

// Messages quote compiler output and file names, which need not be UTF-8 (a binary file handed
// in as source): every report must still be writable as JSON.
void MakeTextValid(GradeResult& result) {
  result.submission = ValidUtf8(result.submission);
  for (ExerciseResult& e : result.exercises) {
    e.message = ValidUtf8(e.message);
    e.cause = ValidUtf8(e.cause);
    for (std::string& note : e.notes) note = ValidUtf8(note);
  }
  if (result.speed) {
    result.speed->message = ValidUtf8(result.speed->message);
    result.speed->cause = ValidUtf8(result.speed->cause);
  }
}

}  // namespace

ExerciseOutcome ToOutcome(const ExerciseVerdict& v) {
  ExerciseOutcome outcome;
  outcome.id = v.id;
  outcome.notes = v.notes;
  outcome.unchecked = v.unchecked;
  if (v.cause == kTechniqueCause && v.status == GradeStatus::kFailed) {
    outcome.flavours = {{ToString(Flavour::kDefault), GradeStatus::kPassed, "", ""},
                        {ToString(Flavour::kNoFma), GradeStatus::kPassed, "", ""}};
    outcome.technique_failure = v.message;
    return outcome;
  }
  // Each build that ran: the one the deciding check failed on carries the failure, the others
  // passed; a build that never ran (after the default build failed) is left out.
  const std::vector<Flavour> builds =
      v.builds_run.empty() ? std::vector<Flavour>{Flavour::kDefault} : v.builds_run;
  for (Flavour build : builds) {
    if (!v.passed() && build == v.flavour)
      outcome.flavours.push_back({ToString(build), v.status, v.message, v.cause});
    else
      outcome.flavours.push_back({ToString(build), GradeStatus::kPassed, "", ""});
  }
  return outcome;
}

std::string SubmissionFolder(const std::string& dir) {
  fs::path path = fs::absolute(dir).lexically_normal();
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path())
    path = path.parent_path();
  return path.string();
}

std::string SubmissionNameOf(const std::string& dir) {
  return fs::path(SubmissionFolder(dir)).filename().string();
}

GradeResult GradeSubmission(ProcessRunner& runner, const Manifest& manifest, const LabSpec& spec,
                            const GradeRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  GradeResult result;
  result.lab = spec.id;
  result.lab_title = spec.title;
  result.submission = request.submission_name;
  result.backend = ToString(request.backend);
  result.seed = request.seed;
  result.timestamp = UtcTimestamp();

  GradeEnv env{runner, manifest, spec, request.backend, request.seed, request.work_dir};
  env.reference_cache = request.reference_cache;
  env.src_dir = request.src_dir;  // the constant-memory check compiles the file to PTX
  fs::create_directories(request.work_dir);
  auto datasets = LoadDatasets(manifest.data_dir, spec);
  std::string grader_fault = datasets ? "" : datasets.error();
  if (datasets) env.datasets = std::move(*datasets);

  SubmissionBuilder builder(runner, manifest, spec);
  builder.set_check_symbols(request.check_symbols);
  env.builder = &builder;
  for (Flavour flavour : {Flavour::kDefault, Flavour::kNoFma}) {
    const BuildOutcome& first = env.builds[Flavour::kDefault];
    if (flavour == Flavour::kNoFma && !NoFmaBuildNeeded(request.backend, first)) {
      // build_plan.h: the same program as the default build (or a failed default build, which
      // decides alone; a compile-time bomb costs one compile limit, not two).
      if (first.ok)
        Say(request, "nofma flavour: the default build, which has no fused multiply-add");
      env.builds[flavour] = NoFmaFromDefault(first);
      continue;
    }
    Say(request, std::string("building (") + ToString(flavour) + " flavour)");
    env.builds[flavour] =
        builder.Build(request.src_dir, request.work_dir + "/build_" + ToString(flavour),
                      request.backend, flavour);
    if (env.builds[flavour].stage == "toolchain") grader_fault = env.builds[flavour].message;
  }
  if (request.thread_sanitizer && Traits(request.backend).thread_sanitizer &&
      env.builds[Flavour::kDefault].ok) {
    Say(request, "building (ThreadSanitizer flavour)");
    env.builds[Flavour::kThreadSanitizer] =
        builder.Build(request.src_dir, request.work_dir + "/build_tsan", request.backend,
                      Flavour::kThreadSanitizer);
    env.thread_sanitizer = true;
  }
  const BuildOutcome& first_build = env.builds[Flavour::kDefault];
  if (first_build.timed_out)
    env.resources_error = "the file did not compile in time";
  else if (first_build.stage == "unreadable_file" || first_build.stage == "missing_file")
    env.resources_error = first_build.message;  // nvcc would block on a FIFO just the same
  else
    ReadResources(env, builder, request.src_dir);

  std::vector<ExerciseOutcome> outcomes;
  bool speed_exercise_passed = false;
  std::vector<ExerciseVerdict> verdicts;
  if (grader_fault.empty()) {
    Say(request, "checking " + std::to_string(spec.exercises.size()) + " exercises");
    verdicts = GradeExercises(env, spec.exercises);
  }
  for (std::size_t i = 0; i < spec.exercises.size(); ++i) {
    const Exercise& ex = spec.exercises[i];
    const ExerciseVerdict verdict =
        grader_fault.empty()
            ? verdicts[i]
            : Verdict(ex, {GradeStatus::kGraderError, "toolchain",
                           "the grader could not run: " + grader_fault});
    Say(request, "exercise " + ex.id + ": " +
                     (verdict.cause == kTechniqueCause ? kTechniqueCause : ToString(verdict.status)));
    if (spec.speed && spec.speed->exercise == ex.id) speed_exercise_passed = verdict.passed();
    if (ex.given) {
      result.exercises.push_back(GivenResult(ex, verdict));
    } else {
      outcomes.push_back(ToOutcome(verdict));
    }
  }

  SpeedOutcome speed;
  if (grader_fault.empty()) {
    if (spec.speed && Traits(request.backend).times_kernels) Say(request, "timing");
    speed = GradeSpeed(env, speed_exercise_passed);
  } else {
    speed.kind = SpeedMeasurement::Kind::kNotMeasured;
    speed.message = "the grader could not run: " + grader_fault;
  }
  auto scores = ScoreSubmission(spec, outcomes, ToMeasurement(speed));
  if (scores) {
    const std::vector<ExerciseResult> given = result.exercises;
    result.SetScores(*scores);
    result.exercises.insert(result.exercises.begin(), given.begin(), given.end());
  } else {
    ExerciseResult fault;
    fault.id = "grader";
    fault.title = "grading";
    fault.status = GradeStatus::kGraderError;
    fault.message = scores.error();
    fault.cause = "scoring";
    result.exercises.push_back(fault);
  }
  if (grader_fault.empty())
    result.device = env.device_line.is_object() ? DeviceFromLine(env.device_line) : ProbeDevice(env);
  if (Traits(request.backend).models_the_gpu && !result.device.name.empty())
    result.device.name += " (modelled by the CPU backend)";
  if (env.kernels_reach_host_memory) result.device.pageable_memory_access = 1;
  MakeTextValid(result);
  result.execution_time_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace labkit
