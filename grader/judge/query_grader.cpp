#include "query_grader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "case_diagnostic.h"
#include "diagnostics_text.h"
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
};

QueryRun RunQueries(GradeEnv& env, const Exercise& ex, const std::string& executable,
                    const std::string& work_dir) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl"}) fs::remove(dir + stale);
  json request = {{"exercise", ex.id}, {"cases", json::array()}};
  for (std::size_t i = 0; i < ex.params.size(); ++i)
    request["cases"].push_back({{"id", "q" + std::to_string(i)}, {"params", ex.params[i]}});
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
  cmd.argv = {executable, dir + "request.json", dir + "response.jsonl"};
  cmd.cwd = dir;
  cmd.timeout_seconds = env.spec.limits.RunSeconds();
  if (env.spec.limits.output_bytes > 0)
    cmd.output_limit = static_cast<std::size_t>(env.spec.limits.output_bytes);
  if (!env.kernels_json.empty()) cmd.env["LABKIT_EMU_KERNELS"] = env.kernels_json;
  cmd.env["LABKIT_EMU_REPORT"] = dir + "emu_report.jsonl";
  cmd.env["LABKIT_DEVICE_MEMORY_LIMIT"] = std::to_string(kHarnessDeviceMemoryBytes);

  run.process = env.runner.Run(cmd);
  run.cases.resize(ex.params.size());
  for (const json& line : ReadJsonObjectLines(dir + "response.jsonl")) {
    const std::string type = TextField(line, "type");
    if (type == "done") run.done = true;
    if (type == "error") run.harness_error = TextField(line, "detail");
    if (type != "case") continue;
    const std::string id = TextField(line, "id");
    for (std::size_t i = 0; i < ex.params.size(); ++i)
      if (id == "q" + std::to_string(i)) run.cases[i] = line;
  }
  run.emu_diagnostics = ReadJsonObjectLines(dir + "emu_report.jsonl");
  return run;
}
}  // namespace

ExerciseVerdict GradeQueryExercise(GradeEnv& env, const Exercise& ex) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (!build.ok) return BuildFailureVerdict(ex, build);
  const QueryRun run = RunQueries(env, ex, build.executable, env.work_dir + "/" + ex.id);
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
  return Verdict(ex, "passed", "");
}

}  // namespace labkit
