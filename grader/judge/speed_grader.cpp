#include "speed_grader.h"

#include "diagnostics_text.h"
#include "exercise_checks.h"
#include "inputs.h"
#include "report_lines.h"
#include "tolerance.h"

namespace labkit {
namespace {

using Kind = SpeedMeasurement::Kind;

SpeedOutcome Outcome(Kind kind, std::string message, std::string cause = "") {
  SpeedOutcome s;
  s.kind = kind;
  s.message = std::move(message);
  s.cause = std::move(cause);
  return s;
}

TimingSpec MakeTiming(const GradeEnv& env) {
  const Speed& speed = *env.spec.speed;
  TimingSpec t;
  t.shape = speed.size;
  t.reps = speed.reps;
  for (int64_t s = 0; s < speed.input_sets; ++s) {
    ProductInputs in = GenerateProductInputs(env.seed, "timed_" + std::to_string(s), t.shape,
                                             ValueKind::kFullMantissa);
    t.A_sets.push_back(std::move(in.a));
    t.B_sets.push_back(std::move(in.b));
  }
  return t;
}

// Runs one timing job; on success fills `ms` and `baseline_ms`, else returns why not, with a cause
// key in `cause`.
std::string Time(GradeEnv& env, const std::string& executable, const TimingSpec& timing,
                 const std::string& dir, double& ms, double& baseline_ms, std::string& cause) {
  HarnessOptions options;
  options.exercise = env.spec.speed->exercise;
  options.timing = &timing;
  options.replay = true;  // the speed exercise has a kernel: its device work is what is timed
  options.timeout_seconds = 120 + 4 * timing.reps.max_seconds;
  const HarnessRun run = RunHarness(env.runner, executable, dir, options, {});
  cause = "timed_run_died";
  if (!run.timing)
    return "the timed run did not finish: " +
           DescribeDeath(run.process.started ? run.process : run.record_process);
  cause = "timed_run_failed";
  if (TextField(*run.timing, "status") != case_status::kOk)
    return "the timed run failed: " + TextField(*run.timing, "error") + " " +
           TextField(*run.timing, "detail");
  if (NumberField(*run.timing, "mismatched_reps", 0.0) > 0)
    return "the output of a timed run differed from the kit's rows kernel on the same fresh inputs, "
           "in the timed " + SpacedShapeText(timing.shape) +
           " product, larger than any correctness case (a grid sized for smaller matrices, results "
           "kept from an earlier call, or work not finished when the function returns?)";
  // Timed outputs are checked too, against the inputs of the *next* set (the harness swaps the
  // sets before its last run, so a result cached between calls shows up as wrong).
  const std::size_t sets = timing.A_sets.size();
  CheckOptions sample;
  for (int64_t r = 0; r < timing.shape.m; r += std::max<int64_t>(1, timing.shape.m / 64))
    sample.rows.push_back(r);
  sample.keep_reference = false;
  for (std::size_t s = 0; s < sets; ++s) {
    const std::size_t next = (s + 1) % sets;
    auto check = CheckProduct(ToleranceModel::kForwardError, timing.shape, timing.A_sets[next],
                              timing.B_sets[next], run.timing_outputs[s], sample);
    cause = "timed_output_wrong";
    if (!check.ok() || !check->passed())
      return "the output of a timed run is wrong (results reused between calls, or work not "
             "finished when the function returns?)";
  }
  cause = "";
  ms = NumberField(*run.timing, "student_median_ms", 0.0);
  baseline_ms = NumberField(*run.timing, "baseline_median_ms", 0.0);
  return "";
}

}  // namespace

SpeedOutcome GradeSpeed(GradeEnv& env, bool exercise_passed) {
  if (!env.spec.speed) return Outcome(Kind::kNotMeasured, "");
  if (!Traits(env.backend).times_kernels)
    return Outcome(Kind::kNotMeasured, "speed is not measured on the CPU backend; run on a GPU");
  if (!exercise_passed)
    return Outcome(
        Kind::kFailed,
        "speed counts only once '" + env.spec.speed->exercise + "' passes its correctness checks",
        "timed_exercise_failed");

  const TimingSpec timing = MakeTiming(env);
  SpeedOutcome out = Outcome(Kind::kMeasured, "");
  // The reference first: when the kit cannot time its own solution, the student's timing would be
  // wasted, and the item is the kit's fault ("not graded", retried), never the student's zero.
  std::string reference_cause;
  auto measure_reference = [&](double& ms, double& baseline_ms) -> std::string {
    SubmissionBuilder builder(env.runner, env.manifest, env.spec);
    const BuildOutcome reference =
        builder.Build(env.manifest.source_dir + "/solutions/" + env.spec.id,
                      env.work_dir + "/reference", Backend::kGpu, Flavour::kDefault);
    reference_cause = "reference_build";
    if (!reference.ok) return "the kit's reference solution did not build: " + reference.message;
    std::string cause;
    const std::string failed = Time(env, reference.executable, timing,
                                    env.work_dir + "/speed_reference", ms, baseline_ms, cause);
    reference_cause = "reference_timing";
    return failed.empty() ? "" : "timing the kit's reference failed: " + failed;
  };
  ReferenceTimingCache own_cache;
  ReferenceTimingCache& cache = env.reference_cache ? *env.reference_cache : own_cache;
  std::string why = cache.Get(measure_reference, out.reference_ms, out.reference_baseline_ms);
  if (!why.empty()) return Outcome(Kind::kGraderError, why, reference_cause);

  std::string cause;
  why = Time(env, env.builds.at(Flavour::kDefault).executable, timing,
             env.work_dir + "/speed_student", out.student_ms, out.baseline_ms, cause);
  if (!why.empty()) return Outcome(Kind::kFailed, why, cause);
  return out;
}

}  // namespace labkit
