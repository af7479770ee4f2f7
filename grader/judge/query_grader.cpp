#include "query_grader.h"

#include <cmath>
#include <sstream>

#include "case_diagnostic.h"
#include "diagnostics_text.h"
#include "report_lines.h"

namespace labkit {
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

// A process that ended before its last answer: timed out or crashed, as `where` it was.
Finding Died(const ProcessResult& process, const std::string& where) {
  if (process.timed_out) return {GradeStatus::kTimeout, "timeout", where + DescribeDeath(process)};
  return {GradeStatus::kCrashed, "crashed", where + DescribeDeath(process)};
}

}  // namespace

ExerciseVerdict GradeQueryExercise(GradeEnv& env, const Exercise& ex) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (!build.ok) return BuildFailureVerdict(ex, build);
  HarnessOptions options;
  options.exercise = ex.id;
  options.timeout_seconds = env.spec.limits.RunSeconds();
  if (env.spec.limits.output_bytes > 0)
    options.output_limit = static_cast<std::size_t>(env.spec.limits.output_bytes);
  options.emu_kernels_json = env.kernels_json;
  const HarnessRun run =
      RunQueries(env.runner, build.executable, env.work_dir + "/" + ex.id, options, ex.params);
  if (!run.harness_error.empty())
    return Verdict(ex, {GradeStatus::kGraderError, "harness_failed",
                        "the grader's harness failed on its own: " + run.harness_error});
  if (!run.process.started)  // the kit could not start its own program: not the student's doing
    return Verdict(ex, {GradeStatus::kGraderError, "harness_not_started",
                        "the grader could not start the harness: " + run.process.start_error});
  for (std::size_t i = 0; i < ex.params.size(); ++i) {
    const CaseRun& r = run.cases[i];
    const std::string params =
        ex.params[i].empty() ? "" : " (with " + ParamText(ex.params[i]) + ")";
    if (!r.reported) {
      if (const json* d = EmuDiagnosticFor(run.emu_diagnostics, r.id, false))
        return Verdict(ex, {GradeStatus::kFailed, "emu_diagnostic",
                            DescribeEmuDiagnostic(*d, build.executable, &env.runner) +
                                " (while calling " + ex.function + params + ")"});
      return Verdict(ex, Died(run.process, "while calling " + ex.function + params + ", "));
    }
    if (r.status == "reported_twice")
      return Verdict(ex, {GradeStatus::kFailed, "report_tampered",
                          "the grader's report of the call" + params +
                              " (response.jsonl) is there twice: something in the submission "
                              "wrote to the grader's files."});
    if (r.status != "ok")
      return Verdict(ex, {GradeStatus::kFailed, "cuda_error",
                          "CUDA error " + r.error + params + ": " + r.detail + "."});
    const json values = r.values.is_object() ? r.values : json::object();
    std::string failures;
    for (const QueryValueSpec& spec : ex.values) {
      const std::string failure = CompareQueryValue(
          spec, ex.params[i], values.contains(spec.name) ? values[spec.name] : json());
      if (!failure.empty()) failures += (failures.empty() ? "" : "\n") + failure;
    }
    if (!failures.empty()) return Verdict(ex, {GradeStatus::kFailed, "wrong_value", failures});
  }
  if (!run.done) return Verdict(ex, Died(run.process, "after the last case, "));
  return Verdict(ex, {});
}

}  // namespace labkit
