#include "query_grader.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "case_diagnostic.h"
#include "diagnostics_text.h"
#include "drawn_expected.h"
#include "exercise_checks.h"
#include "gpu_counters.h"
#include "inputs.h"
#include "query_measured.h"
#include "report_lines.h"

namespace labkit {
using nlohmann::json;

std::string NumberText(double value, int digits) {
  if (std::isnan(value)) return "NaN";
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  std::ostringstream text;
  text.precision(digits);
  text << value;
  return text.str();
}

namespace {

// "active_blocks with block_side=16" or "width" (no parameters).
std::string Quantity(const std::string& name, const ParamSet& params) {
  return params.empty() ? name : name + " with " + ParamText(params);
}

bool Matches(double student, double expected, double relative_tolerance) {
  if (std::isnan(student) || std::isnan(expected)) return false;
  if (relative_tolerance == 0) return student == expected;
  return std::fabs(student - expected) <= relative_tolerance * std::fabs(expected);
}

}  // namespace

std::string CompareQueryValue(const QueryValueSpec& spec, const ParamSet& params,
                              const json& value) {
  const std::string what = Quantity(spec.name, params);
  if (!value.is_object())
    return what + ": the harness reported no value (the lab's harness table does not fill it)";
  const double expected = NumberField(value, "expected");
  const double student = NumberField(value, "student");
  if (Matches(student, expected, spec.relative_tolerance)) return "";
  // Digits enough to tell the two apart (0.833333 and 0.833333 say nothing).
  std::string expected_text = NumberText(expected), student_text = NumberText(student);
  for (int digits = 9; expected_text == student_text && digits <= 17; digits += 4)
    expected_text = NumberText(expected, digits), student_text = NumberText(student, digits);
  std::string message = what + ": expected " + expected_text + ", got " + student_text;
  if (spec.relative_tolerance > 0)
    message +=
        " (a relative difference of up to " + NumberText(spec.relative_tolerance) + " is accepted)";
  message += ".";
  if (value.contains("hints") && value["hints"].is_array())
    for (const json& h : value["hints"])
      if (h.is_object() && Matches(student, NumberField(h, "value"), spec.relative_tolerance))
        return message + " Usual cause: " + h.value("cause", "") + ".";
  return message;
}

namespace {

// The harness's word on the case it worked the expected values out for (worked_out_for), against
// the case asked: "" when they agree, else the first parameter that differs, in words.
std::string CaseChanged(const ParamSet& asked, const json& worked_out_for) {
  if (!worked_out_for.is_object()) return "";
  for (const auto& [name, value] : worked_out_for.items()) {
    const auto it = asked.find(name);
    if (it == asked.end()) continue;
    if (!value.is_number_integer() || value.get<int64_t>() != it->second)
      return name + "=" + value.dump() + " where the case asked " + name + "=" +
             std::to_string(it->second);
  }
  return "";
}

// A process that ended before its last answer: timed out or crashed, as `where` it was.
Finding Died(const ProcessResult& process, const std::string& where) {
  if (process.timed_out) return {GradeStatus::kTimeout, "timeout", where + DescribeDeath(process)};
  return {GradeStatus::kCrashed, "crashed", where + DescribeDeath(process)};
}

// The harness options every run of a query exercise shares: its id, the lab's limits, the
// resource report for the emulator's occupancy API.
HarnessOptions QueryOptions(const GradeEnv& env, const Exercise& ex) {
  HarnessOptions options;
  options.exercise = ex.id;
  options.timeout_seconds = env.spec.limits.RunSeconds();
  if (env.spec.limits.output_bytes > 0)
    options.output_limit = static_cast<std::size_t>(env.spec.limits.output_bytes);
  options.emu_kernels_json = env.kernels_json;
  options.replay = ex.recorded;  // a host function's cases: recorded, then replayed apart
  return options;
}

}  // namespace

namespace {

// The values of one call (`values`, the harness's object) against every spec of the exercise:
// "" when all match, else one line per value that does not.
std::string ValueFailures(const Exercise& ex, const ParamSet& params, const json& values) {
  std::string failures;
  for (const QueryValueSpec& spec : ex.values) {
    const std::string failure = CompareQueryValue(
        spec, params,
        values.is_object() && values.contains(spec.name) ? values[spec.name] : json());
    if (!failure.empty()) failures += (failures.empty() ? "" : "\n") + failure;
  }
  return failures;
}

// A drawn case's values (`values`, the harness's object) with labgrade's own expected values and
// hints where lab.yaml names a formula (drawn_expected.h): the harness words none for such cases,
// since anything it works out is in the student's process, and an expected value there is ignored.
// An error when the formula cannot work them out (lab.yaml's fault).
Result<json> WithGradersExpected(const GradeEnv& env, const Exercise& ex, const ParamSet& params,
                                 json values) {
  if (!ex.drawn || ex.drawn->expected_by == DrawnExpected::kHarness) return values;
  const Result<DrawnValues> drawn = DrawnExpectedValues(
      *ex.drawn, params,
      StudentKernelIn(env.resources ? &*env.resources : nullptr, env.resources_error,
                      Traits(env.backend).models_the_gpu, ex.drawn->kernel));
  if (!drawn.ok()) return MakeError(drawn.error());
  if (!values.is_object()) values = json::object();
  for (const QueryValueSpec& spec : ex.values) {
    const auto expected = drawn->expected.find(spec.name);
    if (expected == drawn->expected.end())
      return MakeError("lab.yaml's drawn.expected_by gives no value named " + spec.name);
    // A value the harness did not report stays unreported: the student's number is its to give.
    if (!values.contains(spec.name) || !values[spec.name].is_object()) continue;
    json& value = values[spec.name];
    value["expected"] = expected->second;
    if (!value.contains("hints") || !value["hints"].is_array()) value["hints"] = json::array();
    for (const DrawnHint& h : drawn->hints)  // after the harness's own: theirs come first
      if (h.value_name == spec.name && h.value != expected->second)
        value["hints"].push_back({{"value", h.value}, {"cause", h.cause}});
  }
  return values;
}

// `measured` (lab_spec.h QueryMeasured): the rule's case run once more with every launch counted,
// in the default build (by the emulator on the CPU backend, by ncu on a GPU); passed when the
// counts satisfy the rule. `why_not` is set when a GPU could not be counted here.
Finding MeasuredQueryFinding(GradeEnv& env, const Exercise& ex, const std::string& work_dir,
                             std::string& why_not) {
  auto technique = [](const std::string& why) {
    return Finding{GradeStatus::kFailed, kTechniqueCause,
                   "not with the technique this exercise teaches: " + why};
  };
  QueryMeasured rule = *ex.measured;
  rule.params = CountedParamsOf(env, ex);
  const bool emulated = Traits(env.backend).emulator_counts;
  // Built: the exercise's own calls ran there before (GradeQueryExercise).
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  HarnessOptions options = QueryOptions(env, ex);
  options.list_launches = true;
  options.count_accesses = emulated;
  options.gpu_counters = !emulated;
  const HarnessRun run =
      RunQueries(env.runner, build.executable, work_dir + "/counting", options, {rule.params});
  const std::string with = " (in the counted case, " + ParamText(rule.params) + ")";
  if (!run.harness_error.empty())
    return technique("the grader's counting run failed: " + run.harness_error);
  const CaseRun& counted = run.cases.front();
  if (!counted.reported && !emulated && !run.counted) {
    // The same call has just run its cases to the end outside Nsight Compute; dying under it with
    // no table of counts is the tool's failure as often as the program's (one GPU's counters
    // shared by a batch: an H200 under ten jobs saw exit status 9). Not the student's to lose:
    // not graded, and graded again. A program that dies only when counted gains nothing by it.
    const std::string said = CounterError(run);
    return {GradeStatus::kGraderError, "counting_failed",
            "the grader's counting run under Nsight Compute stopped with no counts" + with + ": " +
                run.process.Describe() + (said.empty() ? "" : " (" + said + ")")};
  }
  if (const json* race = emulated ? SharedRaceIn(run) : nullptr)
    return {GradeStatus::kFailed, kDataRaceCause,
            DescribeEmuDiagnostic(*race, build.executable, &env.runner, nullptr)};
  if (!counted.reported) return technique(ex.function + with + ", " + DescribeDeath(run.process));
  if (counted.status != case_status::kOk)
    return technique("CUDA error " + counted.error + with + ": " + counted.detail);
  // The same call was graded in the default build (DrawnParamsOf); its values here are checked
  // too, so that what is counted is the kernel that computed them.
  const std::string failures = ValueFailures(ex, rule.params, counted.values);
  if (!failures.empty())
    return technique("in the build in which the grader counts memory accesses: " + failures);
  // No table and no launch is the student's doing (host code that launches nothing while it is
  // counted): the rule below says the kernel was never launched. No table of launches made on a
  // machine that cannot count is the tool's: the pass stands, said not to be final.
  if (!emulated && !run.counted && !counted.launches.empty()) {
    why_not = NotCountedNote(run, "accesses");
    // The table is written in the student's own program here: its word that this machine cannot
    // count stands only where the driver does keep the counters to administrators (or labgrade
    // cannot tell). Otherwise, as in technique_check.cpp, the run's failure is not graded.
    if (CannotCountHere(run.counter_log) &&
        DriverCounterAccess(env.nvidia_params) != CounterAccess::kEveryone)
      return {};
    return {GradeStatus::kGraderError, "counting_failed", why_not};
  }
  const std::string failure =
      CheckQueryMeasured(rule, counted.launches, /*barriers_counted=*/emulated);
  return failure.empty() ? Finding{} : technique(failure);
}

// The lab's starter built as a submission is: its files copied into the grading's folder first,
// the one the sandbox lets the compiler read besides the submission's.
BuildOutcome BuildStarter(GradeEnv& env) {
  const std::filesystem::path from = std::filesystem::path(env.manifest.source_dir) / "starter" /
                                     env.spec.id,
                              to = env.work_dir + "/starter";
  std::error_code ec;
  std::filesystem::create_directories(to, ec);
  for (const std::string& file : env.spec.student_files)
    std::filesystem::copy_file(from / file, to / file,
                               std::filesystem::copy_options::overwrite_existing, ec);
  return env.builder->Build(to.string(), env.work_dir + "/build_starter", env.backend,
                            Flavour::kDefault);
}

// A harness error where every case reported was right (or one was left unreported beside it).
// The error line comes from the process the student's code runs in, which can provoke one or
// write it (a red-team pass refused the harness its case file through the import table, r30), so
// it is the kit's failure only where the kit fails without the submission too. The same cases run
// against the lab's starter, the kit's harness with code that attacks nothing: an error there too
// is the kit's (not graded); none there, and the submission failing the same way once more, is
// the submission's. A second run of the submission that does not fail is a passing fault: not
// graded, and graded again.
Finding HarnessErrorFinding(GradeEnv& env, const Exercise& ex, const std::vector<ParamSet>& graded,
                            const std::string& error) {
  const Finding kits{GradeStatus::kGraderError, "harness_failed",
                     "the grader's harness failed on its own: " + error};
  if (env.builder == nullptr) return kits;  // nothing to tell them apart with
  if (!env.starter_build) env.starter_build = BuildStarter(env);
  if (!env.starter_build->ok) return kits;
  const std::string dir = env.work_dir + "/" + ex.id;
  const HarnessRun starter = RunQueries(env.runner, env.starter_build->executable,
                                        dir + "/with_the_starter", QueryOptions(env, ex), graded);
  if (!starter.process.started || !starter.harness_error.empty()) return kits;
  const HarnessRun again = RunQueries(env.runner, env.builds.at(Flavour::kDefault).executable,
                                      dir + "/again", QueryOptions(env, ex), graded);
  if (again.harness_error.empty()) return kits;
  return {GradeStatus::kFailed, "harness_stopped",
          "the grader's harness stopped with your code, twice (\"" + again.harness_error +
              "\"), and not with the lab's starter in its place: something in the submission "
              "stopped the grader's own code, which ends the exercise as a crash would"};
}

}  // namespace

ExerciseVerdict GradeQueryExercise(GradeEnv& env, const Exercise& ex) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (!build.ok) return BuildFailureVerdict(ex, build);
  // lab.yaml's parameter sets, then those drawn from the seed (the counted one among them).
  std::vector<ParamSet> graded = ex.params;
  for (ParamSet& drawn : DrawnParamsOf(env, ex)) graded.push_back(std::move(drawn));
  const HarnessRun run = RunQueries(env.runner, build.executable, env.work_dir + "/" + ex.id,
                                    QueryOptions(env, ex), graded);
  if (!run.process.started)  // the kit could not start its own program: not the student's doing
    return Verdict(ex, {GradeStatus::kGraderError, "harness_not_started",
                        "the grader could not start the harness: " + run.process.start_error});
  // The harness's word that it failed on its own comes from the process the student's code ran in,
  // which can write that line too (a red-team pass forged one, and another made the kit's own
  // check fail, to turn a zero into "not graded"): the cases reported before it are judged first,
  // and a wrong one settles the verdict. Where every reported case passed, HarnessErrorFinding.
  const auto harness_failed = [&] {
    return Verdict(ex, HarnessErrorFinding(env, ex, graded, run.harness_error));
  };
  for (std::size_t i = 0; i < graded.size(); ++i) {
    const CaseRun& r = run.cases[i];
    const std::string params = graded[i].empty() ? "" : " (with " + ParamText(graded[i]) + ")";
    // Not reported: the process died there. Not recorded: the record run of a host function
    // (`recorded`) left no plan for the replay, having died there.
    const bool not_recorded = r.status == case_status::kNotRecorded;
    if ((!r.reported || not_recorded) && !run.harness_error.empty()) return harness_failed();
    if (!r.reported || not_recorded) {
      if (const json* d = EmuDiagnosticFor(run.emu_diagnostics, r.id, false))
        return Verdict(ex, {GradeStatus::kFailed, "emu_diagnostic",
                            DescribeEmuDiagnostic(*d, build.executable, &env.runner) +
                                " (while calling " + ex.function + params + ")"});
      if (not_recorded) return Verdict(ex, NotRecorded(run, ex.function + params));
      return Verdict(ex, Died(run.process, "while calling " + ex.function + params + ", "));
    }
    if (r.status == "reported_twice")
      return Verdict(ex, {GradeStatus::kFailed, "report_tampered",
                          "the grader's report of the call" + params +
                              " (response.jsonl) is there twice: something in the submission "
                              "wrote to the grader's files."});
    if (r.status == case_status::kStudentException)
      return Verdict(ex, {GradeStatus::kFailed, "student_exception",
                          "calling " + ex.function + params + ", " + r.detail + "."});
    if (r.status == case_status::kRefusedCall)  // the detail names the student's function
      return Verdict(ex, {GradeStatus::kFailed, "refused_call", r.detail + params + "."});
    if (r.status != case_status::kOk)
      return Verdict(ex, {GradeStatus::kFailed, "cuda_error",
                          "CUDA error " + r.error + params + ": " + r.detail + "."});
    if (const std::string changed = CaseChanged(graded[i], r.worked_out_for); !changed.empty())
      return Verdict(ex, {GradeStatus::kFailed, "report_tampered",
                          "the grader worked the expected values of the call" + params +
                              " out for " + changed +
                              ": something in the submission changed the grader's own memory "
                              "while your function ran."});
    // Cases drawn from the seed follow lab.yaml's own: their expected values may be labgrade's.
    const Result<json> values = i < ex.params.size()
                                    ? Result<json>(r.values)
                                    : WithGradersExpected(env, ex, graded[i], r.values);
    if (!values.ok())
      return Verdict(ex, {GradeStatus::kGraderError, "drawn_expected_failed",
                          "the grader could not work out the expected values" + params + ": " +
                              values.error()});
    const std::string failures = ValueFailures(ex, graded[i], *values);
    if (!failures.empty()) return Verdict(ex, {GradeStatus::kFailed, "wrong_value", failures});
  }
  if (!run.harness_error.empty()) return harness_failed();
  if (!run.done) return Verdict(ex, Died(run.process, "after the last case, "));
  if (!ex.measured) return Verdict(ex, {});
  std::string why_not;
  Finding measured = MeasuredQueryFinding(env, ex, env.work_dir + "/" + ex.id, why_not);
  if (!measured.passed()) return Verdict(ex, std::move(measured));
  ExerciseVerdict passed = Verdict(ex, {});
  if (!why_not.empty()) {
    // Nothing else here judges the technique: the pass stands, said not to be final.
    passed.notes.push_back("technique not measured: " + why_not);
    passed.unchecked = true;
  }
  return passed;
}

}  // namespace labkit
