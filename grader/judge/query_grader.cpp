#include "query_grader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "case_diagnostic.h"
#include "diagnostics_text.h"
#include "exercise_checks.h"
#include "gpu_counters.h"
#include "query_measured.h"
#include "report_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

std::string NumberText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  std::ostringstream text;
  text.precision(6);
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
  std::string message =
      what + ": expected " + NumberText(expected) + ", got " + NumberText(student);
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

struct QueryRun {
  ProcessResult process;
  bool done = false;
  std::string harness_error;
  std::vector<json> cases;  // by index; null when not reported
  std::vector<json> emu_diagnostics;
  std::string counter_log;  // with gpu_counters: what ncu wrote
};

// How a run of the query harness is made besides its cases: the counted run of a `measured`
// exercise lists each case's launches, counted by the emulator (a counting build) or by ncu.
struct QueryRunOptions {
  bool list_launches = false;
  bool count_accesses = false;  // CPU backend
  bool gpu_counters = false;    // GPU backend
};

QueryRun RunQueries(GradeEnv& env, const Exercise& ex, const std::vector<ParamSet>& cases,
                    const std::string& executable, const std::string& work_dir,
                    const QueryRunOptions& options = {}) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl", "counters.csv"})
    fs::remove(dir + stale);
  json request = {{"exercise", ex.id}, {"cases", json::array()}};
  for (std::size_t i = 0; i < cases.size(); ++i)
    request["cases"].push_back({{"id", "q" + std::to_string(i)}, {"params", cases[i]}});
  if (options.list_launches) request["list_launches"] = true;
  // A lab that records a host function of the student's and replays its device work (lab 02)
  // checks the replay's launches against the program's own kernels, read off it with nm.
  const auto image = ReadUntrustedFile(executable + ".image.json", 64u << 20);
  if (image.ok()) {
    const json listed = json::parse(*image, nullptr, false);
    if (listed.is_object()) request["student_image"] = listed;
  }
  QueryRun run;
  const Status written = WriteUntrustedFile(dir + "request.json", request.dump(1));
  if (!written) {
    run.harness_error = "cannot write the request: " + written.error();
    return run;
  }

  Command cmd;
  if (options.gpu_counters)
    cmd.argv = CounterCommandPrefix(FindCudaTool("ncu"), dir + "counters.csv");
  cmd.argv.insert(cmd.argv.end(), {executable, dir + "request.json", dir + "response.jsonl"});
  cmd.cwd = dir;
  cmd.timeout_seconds = env.spec.limits.RunSeconds();
  if (env.spec.limits.output_bytes > 0)
    cmd.output_limit = static_cast<std::size_t>(env.spec.limits.output_bytes);
  if (!env.kernels_json.empty()) cmd.env["LABKIT_EMU_KERNELS"] = env.kernels_json;
  cmd.env["LABKIT_EMU_REPORT"] = dir + "emu_report.jsonl";
  cmd.env["LABKIT_DEVICE_MEMORY_LIMIT"] = std::to_string(kHarnessDeviceMemoryBytes);
  if (options.count_accesses) cmd.env["LABKIT_EMU_COUNT_ACCESSES"] = "1";

  {
    const CounterSessionLock counters(options.gpu_counters);  // one ncu session at a time
    run.process = env.runner.Run(cmd);
  }
  run.cases.resize(cases.size());
  for (const json& line : ReadJsonObjectLines(dir + "response.jsonl")) {
    const std::string type = TextField(line, "type");
    if (type == "done") run.done = true;
    if (type == "error") run.harness_error = TextField(line, "detail");
    if (type != "case") continue;
    const std::string id = TextField(line, "id");
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (id == "q" + std::to_string(i)) run.cases[i] = line;
  }
  run.emu_diagnostics = ReadJsonObjectLines(dir + "emu_report.jsonl");
  if (options.gpu_counters) {
    const auto log = ReadUntrustedFile(dir + "counters.csv", 64u << 20);
    if (log.ok()) run.counter_log = *log;
  }
  return run;
}

// `measured` (lab_spec.h QueryMeasured): the rule's case run once more with every launch counted;
// "" when the counts satisfy the rule. `why_not` is set when a GPU could not be counted here.
std::string MeasuredQueryFailure(GradeEnv& env, const Exercise& ex, const std::string& work_dir,
                                 std::string& why_not) {
  const QueryMeasured& rule = *ex.measured;
  const bool gpu = env.backend != Backend::kCpu;
  const BuildOutcome& build = CountingBuildOf(env);
  if (!build.ok)
    return "the build in which the grader counts memory accesses failed: " + build.message;
  QueryRunOptions options;
  options.list_launches = true;
  options.count_accesses = !gpu;
  options.gpu_counters = gpu;
  const QueryRun run =
      RunQueries(env, ex, {rule.params}, build.executable, work_dir + "/counting", options);
  const std::string with = " (in the counted case, " + ParamText(rule.params) + ")";
  if (!run.harness_error.empty()) return "the grader's counting run failed: " + run.harness_error;
  const json& line = run.cases.front();
  if (line.is_null()) return ex.function + with + ", " + DescribeDeath(run.process);
  if (TextField(line, "status") != "ok")
    return "CUDA error " + TextField(line, "error") + with + ": " + TextField(line, "detail");
  std::vector<CaseRun> counted(1);
  if (line.contains("launches") && line["launches"].is_array())
    for (const json& l : line["launches"]) counted[0].launches.push_back(ParseLaunch(l));
  if (gpu) {
    const auto profiled = ParseCounterLog(run.counter_log);
    if (!profiled) {
      std::string said = CounterLogError(run.counter_log + "\n" + run.process.output);
      if (said.empty()) said = LastLine(run.process.output);
      why_not = "Nsight Compute could not count this GPU's accesses here (" +
                run.process.Describe() + (said.empty() ? "" : ": " + said) + ")";
      return "";
    }
    AttachCounts(counted, *profiled);
  }
  return CheckQueryMeasured(rule, counted[0].launches, /*barriers_counted=*/!gpu);
}

}  // namespace

ExerciseVerdict GradeQueryExercise(GradeEnv& env, const Exercise& ex) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (!build.ok) return BuildFailureVerdict(ex, build);
  const QueryRun run = RunQueries(env, ex, ex.params, build.executable, env.work_dir + "/" + ex.id);
  if (!run.harness_error.empty())
    return Verdict(ex, "grader_error",
                   "the grader's harness failed on its own: " + run.harness_error,
                   "harness_failed");
  for (std::size_t i = 0; i < ex.params.size(); ++i) {
    const json& line = run.cases[i];
    const std::string params =
        ex.params[i].empty() ? "" : " (with " + ParamText(ex.params[i]) + ")";
    if (line.is_null()) {
      if (const json* d = EmuDiagnosticFor(run.emu_diagnostics, "q" + std::to_string(i), false))
        return Verdict(ex, "failed",
                       DescribeEmuDiagnostic(*d, build.executable, &env.runner) +
                           " (while calling " + ex.function + params + ")",
                       "emu_diagnostic");
      const char* died = run.process.timed_out ? "timeout" : "crashed";
      return Verdict(ex, died,
                     "while calling " + ex.function + params + ", " + DescribeDeath(run.process),
                     died);
    }
    if (TextField(line, "status") != "ok")
      return Verdict(ex, "failed",
                     "CUDA error " + TextField(line, "error") + params + ": " +
                         TextField(line, "detail") + ".",
                     "cuda_error");
    const json values =
        line.contains("values") && line["values"].is_object() ? line["values"] : json::object();
    std::string failures;
    for (const QueryValueSpec& spec : ex.values) {
      const std::string failure = CompareQueryValue(
          spec, ex.params[i], values.contains(spec.name) ? values[spec.name] : json());
      if (!failure.empty()) failures += (failures.empty() ? "" : "\n") + failure;
    }
    if (!failures.empty()) return Verdict(ex, "failed", failures, "wrong_value");
  }
  if (!run.done) {
    const char* died = run.process.timed_out ? "timeout" : "crashed";
    return Verdict(ex, died, "after the last case, " + DescribeDeath(run.process), died);
  }
  if (!ex.measured) return Verdict(ex, "passed", "");
  std::string why_not;
  const std::string measured = MeasuredQueryFailure(env, ex, env.work_dir + "/" + ex.id, why_not);
  if (!measured.empty())
    return Verdict(ex, "technique", "not with the technique this exercise teaches: " + measured,
                   "technique");
  ExerciseVerdict passed = Verdict(ex, "passed", "");
  if (!why_not.empty()) {
    // Nothing else here judges the technique: the pass stands, said not to be final.
    passed.notes.push_back("technique not measured: " + why_not);
    passed.unchecked = true;
  }
  return passed;
}

}  // namespace labkit
