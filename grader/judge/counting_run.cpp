// `technique.measured` (lab.yaml): the run in which every launch's memory accesses are counted,
// by the emulator in the CPU backend's counting build or by Nsight Compute on a GPU, and the
// verdict on those counts (measured_technique.h).
#include <optional>

#include "exercise_checks.h"
#include "gpu_counters.h"
#include "inputs.h"
#include "measured_technique.h"

namespace labkit {

namespace {

// The counting build, built on first need: most submissions that reach the technique check need
// it, the others (wrong results, another lab) are spared a compile.
const BuildOutcome& CountingBuild(GradeEnv& env) {
  auto it = env.builds.find(Flavour::kCounting);
  if (it != env.builds.end()) return it->second;
  BuildOutcome build;
  if (env.builder == nullptr) {
    build.stage = "toolchain";
    build.message = "the grader was started without a way to build the counting flavour";
  } else {
    build = env.builder->Build(env.src_dir, env.work_dir + "/build_counting", env.backend,
                               Flavour::kCounting);
  }
  return env.builds.emplace(Flavour::kCounting, std::move(build)).first->second;
}

}  // namespace

MatrixCase CountedCase(const GradeEnv& env, const Exercise& ex, const std::string& run_id) {
  MatrixCase c;
  c.id = ex.id + "_counted";
  c.shape = ex.technique->measured->shape;
  c.exercise = run_id;
  ProductInputs in = GenerateProductInputs(env.seed, c.id, c.shape, ValueKind::kFullMantissa);
  c.A = std::move(in.a);
  c.B = std::move(in.b);
  return c;
}

HarnessOptions CountingOptions(const GradeEnv& env, const std::string& run_id) {
  HarnessOptions options = CheckRunOptions(env, run_id, /*replay=*/true);
  options.count_accesses = env.backend == Backend::kCpu;
  options.gpu_counters = env.backend != Backend::kCpu;
  return options;
}

const BuildOutcome& CountingBuildOf(GradeEnv& env) {
  return env.backend == Backend::kCpu ? CountingBuild(env) : env.builds.at(Flavour::kDefault);
}

namespace {

// The counting run made for several exercises in one process (exercise_stages.cpp), taken as this
// exercise's own when it counted it and every case passed there: a failure in a shared process may
// be another exercise's doing, and a run of its own says which.
std::optional<HarnessRun> SharedCount(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                                      const std::vector<MatrixCase>& cases,
                                      const BuildOutcome& build) {
  const auto it = env.shared_counts.find(run_id);
  if (it == env.shared_counts.end()) return std::nullopt;
  HarnessRun run = std::move(it->second);
  env.shared_counts.erase(it);
  if (env.backend != Backend::kCpu && !run.counted) return std::nullopt;
  std::string status;
  bool values_wrong = false;
  if (!FirstFailure(env, ex, run, cases, env.spec.tolerance.model, Flavour::kDefault,
                    build.executable, status, values_wrong)
           .empty())
    return std::nullopt;
  return run;
}

}  // namespace

// `technique.measured`: one case of the rule's shape with every launch's memory accesses counted,
// by the emulator in the CPU backend's counting build, by Nsight Compute on a GPU (gpu_counters.h);
// "" when the counts satisfy the rule. The case's values are checked too, so the counted run is
// the real product. `why_not` is set when a GPU could not be counted here (no permission to read
// its counters): the caller then falls back on what the kernels declare.
std::string MeasuredFailure(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                            const std::string& dir, std::string& why_not) {
  MeasuredTechnique rule = *ex.technique->measured;
  const bool gpu = env.backend != Backend::kCpu;
  const BuildOutcome& build = CountingBuildOf(env);
  if (!build.ok)
    return "the build in which the grader counts memory accesses failed: " + build.message;
  const std::vector<MatrixCase> cases = {CountedCase(env, ex, run_id)};
  // The counts are of the replayed kernels, on the real inputs.
  std::optional<HarnessRun> run = SharedCount(env, ex, run_id, cases, build);
  if (!run)
    run = RunHarness(env.runner, build.executable, dir + "/counting", CountingOptions(env, run_id),
                     cases);
  if (gpu && !run->counted) {
    std::string said = CounterLogError(run->counter_log + "\n" + run->process.output);
    if (said.empty()) said = LastLine(run->process.output);
    why_not = "Nsight Compute could not count this GPU's loads here (" + run->process.Describe() +
              (said.empty() ? "" : ": " + said) + ")";
    return "";
  }
  std::string status;
  bool values_wrong = false;
  const std::string failure =
      FirstFailure(env, ex, *run, cases, env.spec.tolerance.model, Flavour::kDefault,
                   build.executable, status, values_wrong);
  if (!failure.empty())
    return "in the build in which the grader counts memory accesses: " + failure;
  // A GPU has no counter of barriers passed; racecheck finds the races a missing one leaves.
  if (gpu) rule.executes_barrier.reset();
  return CheckMeasuredTechnique(rule, run->cases.front().launches);
}

}  // namespace labkit
