// TechniqueFailure (exercise_checks.h): whether the kernels an exercise's function launched use
// the technique it teaches, from their launch records, what ptxas says they declare, the PTX
// (constant memory) and, for `technique.measured`, what they were counted doing.
#include <algorithm>
#include <optional>
#include <set>

#include "diagnostics_text.h"
#include "drawn_shapes.h"
#include "exercise_checks.h"
#include "fatbin_ptx.h"
#include "gpu_counters.h"
#include "inputs.h"
#include "launch_coverage.h"
#include "measured_technique.h"
#include "ptx_constant_reads.h"
#include "report_lines.h"
#include "transfer_check.h"
#include "untrusted_file.h"

namespace labkit {

namespace {

// Right values, not by the technique the exercise teaches.
Finding TechniqueFinding(std::string message) {
  return {GradeStatus::kFailed, kTechniqueCause, std::move(message)};
}

}  // namespace

namespace {

// GPU: the PTX in the default build's own fatbinaries (fatbin_ptx.h), the code that runs.
void ReadConstantReadersOfBuild(GradeEnv& env) {
  const auto build = env.builds.find(Flavour::kDefault);
  std::optional<std::string> ptx;
  if (build != env.builds.end() && build->second.ok) ptx = PtxOfBuild(build->second.executable);
  if (ptx)
    env.constant_readers = KernelsReadingConstantMemory(*ptx);
  else
    env.constant_readers_error =
        "the PTX in the build's own device code could not be read (a fault of the grader's)";
}

// CPU backend: the student's files compiled to PTX for the modelled GPU.
void ReadConstantReadersOfCompile(GradeEnv& env) {
  if (env.builder == nullptr) env.constant_readers_error = "the grader has no builder for PTX";
  if (env.src_dir.empty()) env.constant_readers_error = "the submission's folder is not known";
  if (!env.constant_readers_error.empty()) return;
  auto files = env.builder->Ptx(env.src_dir, PtxDir(env));
  std::string ptx;
  for (std::size_t i = 0; files && i < files->size(); ++i) {
    auto text = ReadUntrustedFile((*files)[i], kMaxReportBytes);  // the scratch folder
    if (text.ok()) ptx += *text;
  }
  if (files)
    env.constant_readers = KernelsReadingConstantMemory(ptx);
  else
    env.constant_readers_error = files.error();
}

// The kernels of the student's files that read __constant__ memory, read once per grading.
const std::set<std::string>* ConstantReaders(GradeEnv& env, std::string& why_not) {
  if (!env.constant_readers && env.constant_readers_error.empty()) {
    if (Traits(env.backend).models_the_gpu)
      ReadConstantReadersOfCompile(env);
    else
      ReadConstantReadersOfBuild(env);
  }
  why_not = env.constant_readers_error;
  return env.constant_readers ? &*env.constant_readers : nullptr;
}

// `technique.min_threads_per_element_of_c` on each case of `run`, or "": the first case whose
// launches started too few threads for its C. `cases` are those of `run`, in its order (as
// FirstFailure reads them), which passed before the technique is asked.
std::string ThreadsPerElementFailure(const Technique& t, const HarnessRun& run,
                                     const std::vector<MatrixCase>& cases) {
  for (std::size_t i = 0; i < cases.size() && i < run.cases.size(); ++i) {
    const std::string failure =
        CheckThreadsPerElement(*t.min_threads_per_element_of_c, run.cases[i].launches,
                               cases[i].shape, "in " + CaseName(cases[i]));
    if (!failure.empty()) return WithHint(t, "min_threads_per_element_of_c", failure);
  }
  return "";
}

// Checks on how the kernels were launched (the harness's launch records, which both backends fill
// with each launch's grid and block), or "". Worded for any lab; the lab's own advice follows from
// its lab.yaml (`technique.hints`). `cases` are those of `run`.
std::string LaunchFailure(const Exercise& ex, const HarnessRun& run,
                          const std::vector<MatrixCase>& cases) {
  const Technique& t = *ex.technique;
  for (const CaseRun& c : run.cases)
    for (const LaunchInfo& l : c.launches) {
      const std::string kernel = FunctionName(l.kernel);
      const long long threads = l.block[0] * l.block[1] * l.block[2];
      if (t.single_block && *t.single_block && l.grid[0] * l.grid[1] * l.grid[2] != 1)
        return WithHint(t, "single_block",
                        kernel + " was launched with a grid of " + std::to_string(l.grid[0]) +
                            " x " + std::to_string(l.grid[1]) + " x " + std::to_string(l.grid[2]) +
                            " blocks; this exercise launches exactly one block");
      if (t.dynamic_shared_bytes_per_thread &&
          l.dynamic_shared_bytes != *t.dynamic_shared_bytes_per_thread * threads)
        return WithHint(t, "dynamic_shared_bytes_per_thread",
                        kernel + " was launched with blocks of " + std::to_string(threads) +
                            " threads and " + std::to_string(l.dynamic_shared_bytes) +
                            " bytes of dynamic shared memory; this exercise launches them with "
                            "exactly " +
                            std::to_string(*t.dynamic_shared_bytes_per_thread * threads) + " (" +
                            std::to_string(*t.dynamic_shared_bytes_per_thread) +
                            " bytes per thread of the block)");
    }
  if (t.min_threads_per_element_of_c) return ThreadsPerElementFailure(t, run, cases);
  return "";
}

// The build without fused multiply-add is the default one (BuildOutcome::reuses_default).
bool NoFmaBuildIsTheDefault(const GradeEnv& env) {
  const auto nofma = env.builds.find(Flavour::kNoFma);
  return nofma != env.builds.end() && nofma->second.reuses_default;
}

}  // namespace

// How many times the lab's run limit a counting run gets.
constexpr double kCountingSlowdown = 4;

HarnessOptions CountingOptions(const GradeEnv& env, const std::string& run_id) {
  const bool emulated = Traits(env.backend).emulator_counts;
  HarnessOptions options = CheckRunOptions(env, run_id, /*replay=*/true);
  // The layout of every other run of the build (exercise_stages.cpp): where the matrices lie must
  // not tell a counting run either.
  options.exact_layout = Traits(env.backend).exact_allocations;
  options.count_accesses = emulated;
  options.gpu_counters = !emulated;
  // The same work as a run whose cases all passed within the lab's limit, but counted: the
  // emulator records every access, and a GPU's profiler replays each counted kernel once per pass
  // over its counters. Under a batch's load that took longer than the plain limit (a 187 x 186 x
  // 196 case past 5 and 30 s with twelve gradings on one H200, 2026-11-29), which is no fault of
  // the kernel's; a kernel that stops only when counted still ends here.
  options.timeout_seconds = kCountingSlowdown * env.spec.limits.RunSeconds();
  return options;
}

const nlohmann::json* SharedRaceIn(const HarnessRun& run) {
  for (const nlohmann::json& d : run.emu_diagnostics)
    if (d.value("kind", "") == "shared_race") return &d;
  return nullptr;
}

namespace {

// The counting run of the default build's combined run (exercise_stages.cpp), taken as this
// exercise's own when it counted it: its part, with every case of the exercise in their order.
std::optional<HarnessRun> SharedCount(GradeEnv& env, const std::string& run_id) {
  const auto it = env.shared_counts.find(run_id);
  if (it == env.shared_counts.end()) return std::nullopt;
  HarnessRun run = std::move(it->second);
  env.shared_counts.erase(it);
  if (!Traits(env.backend).emulator_counts && !run.counted) return std::nullopt;
  return run;
}

// The counted case alone out of `run` (whose cases are `cases`, in order), for its values and its
// counts: the other cases ran only to come before it as they do in every other run.
HarnessRun CountedPart(const HarnessRun& run, const std::vector<MatrixCase>& cases,
                       const std::string& counted_id) {
  HarnessRun part = run;
  part.cases.clear();
  for (std::size_t i = 0; i < cases.size() && i < run.cases.size(); ++i)
    if (cases[i].id == counted_id) part.cases.push_back(run.cases[i]);
  if (part.cases.empty()) part.cases.push_back({counted_id});  // not reported: a failure
  return part;
}

}  // namespace

// `technique.measured`: one case of the rule's shape with every launch's memory accesses counted,
// in the default build, which every other check ran too: by the emulator on the CPU backend, by
// the GPU's profiler in the replay on a GPU (gpu_counters.h); passed when the counts satisfy the
// rule. The case's values are checked too, so the counted run is the real product; a fault of the
// kit's there (a harness that failed on its own) is a grader error, not the student's technique.
// `why_not` is set when a GPU could not be counted here (no permission to read its counters): the
// caller then falls back on what the kernels declare.
Finding MeasuredFailure(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                        const std::string& dir, const std::vector<MatrixCase>& sequence,
                        std::string& why_not) {
  MeasuredTechnique rule = *ex.technique->measured;
  const BackendTraits& backend = Traits(env.backend);
  const bool emulated = backend.emulator_counts;
  // Built: the exercise passed its cases there before its technique is asked.
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  const std::vector<MatrixCase> cases = {CountedCase(env, ex, run_id)};
  // The counts are of the replayed kernels, on the real inputs, in a run of every case of the
  // exercise in the order of its own run, the counted one counted (exercise_stages.cpp says why);
  // a failure in a shared process may be another exercise's doing, and a run of its own says which.
  std::optional<HarnessRun> counted_run;
  Finding failure;
  if (std::optional<HarnessRun> shared = SharedCount(env, run_id)) {
    counted_run = CountedPart(*shared, sequence, cases.front().id);
    failure = FirstFailure(env, ex, *counted_run, cases, env.spec.tolerance.model,
                           Flavour::kDefault, build.executable);
  }
  if (!counted_run || !failure.passed()) {
    std::vector<MatrixCase> marked = sequence;
    for (MatrixCase& c : marked) c.counted = c.id == cases.front().id;
    counted_run = CountedPart(RunHarness(env.runner, build.executable, dir + "/counting",
                                         CountingOptions(env, run_id), marked),
                              marked, cases.front().id);
    failure = FirstFailure(env, ex, *counted_run, cases, env.spec.tolerance.model,
                           Flavour::kDefault, build.executable);
  }
  const HarnessRun& run = *counted_run;
  // Where the build without fused multiply-add is this very program (build_plan.h), the counted
  // values are that build's as well, and meet its rule as its other cases did: a kernel cannot
  // sum in another order at the counted shape alone.
  if (failure.passed() && NoFmaBuildIsTheDefault(env))
    failure = FirstFailure(env, ex, run, cases, NofmaModel(env.spec, ex), Flavour::kNoFma,
                           build.executable);
  const std::string where = "in the run in which the grader counts memory accesses: ";
  // The emulator's record of shared memory found two threads' accesses with no barrier between
  // them (emu's shared_races.h): a race, as racecheck's on a GPU, not a matter of technique.
  if (emulated && !failure.passed() && SharedRaceIn(run) != nullptr)
    return {GradeStatus::kFailed, kDataRaceCause, failure.message};
  if (failure.status == GradeStatus::kGraderError) {
    failure.message = where + failure.message;
    return failure;
  }
  if (!failure.passed()) return TechniqueFinding(where + failure.message);
  // The values were right (a launch runs even where it could not be counted), but no counts.
  if (!emulated && !run.counted) {
    why_not = NotCountedNote(run, "loads");
    // Where this machine counts for others, a run that could not count (the counters busy under a
    // batch's load, or a kernel that upset the profiler) is the grader's trouble: not graded, and
    // graded again, never a pass on what the kernels declare.
    if (CannotCountHere(run.counter_log)) return {};
    return {GradeStatus::kGraderError, "counting_failed", why_not};
  }
  // A GPU has no counter of barriers passed; racecheck finds the races a missing one leaves.
  if (!backend.counts_barriers) rule.executes_barrier.reset();
  rule.shape = cases.front().shape;
  const std::string counted =
      CheckMeasuredTechnique(rule, run.cases.front().launches, run.cases.front().transfers);
  if (counted.empty()) return {};
  return TechniqueFinding(WithHint(*ex.technique, "measured", counted));
}

namespace {

// The case a counting run reads declarations off: the largest of the exercise's own cases up to
// 64 x 64 x 64 (several blocks and tile phases, and a shape the exercise accepts), else its
// smallest.
MatrixCase DeclarationCase(const GradeEnv& env, const Exercise& ex, const std::string& run_id) {
  std::vector<MatrixCase> cases = CasesFor(env, ex);
  auto volume = [](const MatrixCase& c) { return c.shape.m * c.shape.n * c.shape.k; };
  std::sort(cases.begin(), cases.end(),
            [&](const MatrixCase& a, const MatrixCase& b) { return volume(a) < volume(b); });
  MatrixCase chosen = cases.front();
  for (const MatrixCase& c : cases)
    if (volume(c) <= 64 * 64 * 64) chosen = c;
  chosen.id = ex.id + "_declarations";
  chosen.exercise = run_id;
  return chosen;
}

// CPU backend without nvcc (whose ptxas report says what kernels declare): the same facts as the
// emulator saw the kernels use them in a counting run of one case, per kernel launched, the
// __shared__ arrays of fixed size the largest block reached and whether any block passed a
// barrier. Registers and local memory have no counterpart on a CPU: left at 0, for the caller
// not to check. nullopt, with `why_not`, when the counting run could not tell.
std::optional<ResourceReport> EmulatedDeclarations(GradeEnv& env, const Exercise& ex,
                                                   const std::string& run_id,
                                                   const std::string& dir, std::string& why_not) {
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  const std::vector<MatrixCase> cases = {DeclarationCase(env, ex, run_id)};
  const HarnessRun run = RunHarness(env.runner, build.executable, dir + "/declarations",
                                    CountingOptions(env, run_id), cases);
  const Finding failure = FirstFailure(env, ex, run, cases, env.spec.tolerance.model,
                                       Flavour::kDefault, build.executable);
  if (!failure.passed()) {
    why_not = "the run in which the CPU backend counts what kernels do failed: " +
              failure.message.substr(0, 300);
    return std::nullopt;
  }
  ResourceReport report;
  for (const LaunchInfo& l : run.cases.front().launches) {
    if (!l.accesses) {
      why_not = "the CPU backend's counting run reported no counts for " + FunctionName(l.kernel);
      return std::nullopt;
    }
    auto k = std::find_if(report.kernels.begin(), report.kernels.end(),
                          [&](const KernelResources& r) { return r.mangled == l.kernel; });
    if (k == report.kernels.end()) {
      report.kernels.push_back({});
      k = std::prev(report.kernels.end());
      k->mangled = l.kernel;
    }
    k->static_shared_bytes =
        std::max<int64_t>(k->static_shared_bytes, l.accesses->static_shared_bytes);
    if (l.accesses->barriers > 0) k->barriers = 1;
  }
  return report;
}

// `t`'s declared checks split in two: the limits (at most so much shared memory, registers or
// local memory; no barrier) and the wants (at least so much shared memory; a barrier).
std::pair<Technique, Technique> LimitsAndWants(const Technique& t) {
  Technique limits = t, wanted = t;
  limits.min_static_shared_bytes.reset();
  wanted.max_static_shared_bytes.reset();
  wanted.max_registers.reset();
  wanted.max_local_bytes.reset();
  (t.uses_barrier.value_or(false) ? limits : wanted).uses_barrier.reset();
  return {limits, wanted};
}

// Whether `t` names anything read from ptxas's report of what a kernel declares.
bool ChecksDeclarations(const Technique& t) {
  return t.min_static_shared_bytes || t.max_static_shared_bytes || t.uses_barrier ||
         t.max_registers || t.max_local_bytes;
}

}  // namespace

// The technique is judged on the kernels the student's function really launched: a tiled kernel
// that exists but is never called, or work done on the CPU, earns nothing here.
Finding TechniqueFailure(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                         const std::string& dir, const HarnessRun& run,
                         const std::vector<MatrixCase>& cases, std::vector<std::string>& notes,
                         bool& unchecked) {
  if (ex.kernel.empty()) return {};  // a host-side exercise
  const std::string host_work = HostTransferFailure(ex.function, run.cases);
  if (!host_work.empty()) return TechniqueFinding(host_work);
  std::vector<std::string> launched;
  for (const CaseRun& c : run.cases)
    for (const LaunchInfo& l : c.launches)
      if (std::find(launched.begin(), launched.end(), l.kernel) == launched.end())
        launched.push_back(l.kernel);
  if (launched.empty())
    return TechniqueFinding(ex.function +
                            " launched no kernel: the product must be computed on the GPU by a "
                            "kernel launched from " +
                            ex.function + " (" + ex.kernel + " in the starter).");
  if (!ex.technique) return {};
  const std::string not_taught = "not with the technique this exercise teaches: ";
  const std::string launch = LaunchFailure(ex, run, cases);
  if (!launch.empty()) return TechniqueFinding(not_taught + launch);
  if (ex.technique->reads_constant && *ex.technique->reads_constant) {
    std::string why_not;
    const std::set<std::string>* readers = ConstantReaders(env, why_not);
    if (readers == nullptr) {
      // The CPU backend compiles a __constant__ variable as an ordinary global: only nvcc's PTX
      // tells a read of one from any other read.
      if (env.manifest.nvcc.empty() && Traits(env.backend).emulator_counts)
        why_not +=
            "; the CPU backend compiles a __constant__ variable as an ordinary global "
            "variable, so without nvcc's PTX it cannot tell a read of one from any other "
            "read";
      notes.push_back("constant memory use not checked: " + why_not);
      unchecked = true;
    } else if (std::none_of(launched.begin(), launched.end(),
                            [&](const std::string& k) { return readers->count(k) > 0; })) {
      return TechniqueFinding(not_taught +
                              WithHint(*ex.technique, "reads_constant",
                                       DemangleSymbol(launched.front()) +
                                           " reads no __constant__ variable, which this exercise's "
                                           "kernel does"));
    }
  }
  // What the kernels did replaces what they declare: the shared memory they use (static or
  // dynamic) and, on the CPU backend, the barriers they pass. A GPU keeps ptxas's word on
  // barriers, having no counter of them.
  Technique declared = *ex.technique;
  if (ex.technique->measured) {
    std::string why_not;
    Finding measured = MeasuredFailure(env, ex, run_id, dir, cases, why_not);
    if (measured.cause == kTechniqueCause) measured.message = not_taught + measured.message;
    if (!measured.passed()) return measured;
    if (why_not.empty()) {
      declared.min_static_shared_bytes.reset();
      if (Traits(env.backend).counts_barriers) declared.uses_barrier.reset();
    } else {
      // Declarations a decoy can make: the pass is said not to be final.
      notes.push_back("technique judged from what the kernels declare: " + why_not);
      unchecked = true;
    }
  }
  if (!ChecksDeclarations(declared)) return {};
  std::optional<ResourceReport> emulated;
  if (!env.resources && Traits(env.backend).emulator_counts) {
    // The shared memory and barriers come from what the emulator saw the kernels do; registers
    // and local memory, which a CPU does not have, stay unchecked.
    std::string why_not;
    emulated = EmulatedDeclarations(env, ex, run_id, dir, why_not);
    if (!emulated) notes.push_back("technique not checked: " + why_not);
    if (emulated && (declared.max_registers || declared.max_local_bytes))
      notes.push_back("registers and local memory not checked: " + env.resources_error +
                      ", and the CPU backend has neither");
    unchecked = unchecked || !emulated || declared.max_registers || declared.max_local_bytes;
    declared.max_registers.reset();
    declared.max_local_bytes.reset();
    if (!emulated || !ChecksDeclarations(declared)) return {};
  } else if (!env.resources) {
    notes.push_back("technique not checked: " + env.resources_error);
    unchecked = true;
    return {};
  }
  const ResourceReport& resources = emulated ? *emulated : *env.resources;
  // What the exercise rules out holds for every kernel the function launched, so that a kernel
  // beside the one doing the work cannot stand in for it; what it asks for must be in one of them
  // (a zero-fill or transpose kernel beside the tiled one asks for nothing).
  const auto [limits, wanted] = LimitsAndWants(declared);
  for (const std::string& kernel : launched) {
    if (resources.Find(FunctionName(kernel)).empty()) continue;  // not compiled from their file
    const std::string failure = CheckTechnique(resources, FunctionName(kernel), limits);
    if (!failure.empty())
      return TechniqueFinding(not_taught + ex.function + " launched " + DemangleSymbol(kernel) +
                              ", and " + failure);
  }
  if (!ChecksDeclarations(wanted)) return {};
  std::string first_failure;
  for (const std::string& kernel : launched) {
    const std::string failure = CheckTechnique(resources, FunctionName(kernel), wanted);
    if (failure.empty()) return {};
    if (first_failure.empty()) first_failure = failure;
  }
  std::string names;
  for (const std::string& k : launched) names += (names.empty() ? "" : ", ") + DemangleSymbol(k);
  return TechniqueFinding(not_taught + ex.function + " launched " + names + ", and " +
                          first_failure);
}

}  // namespace labkit
