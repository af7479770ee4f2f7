#include "exercise_grader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "case_diagnostic.h"
#include "diagnosis.h"
#include "diagnostics_text.h"
#include "drawn_shapes.h"
#include "exactness.h"
#include "exercise_checks.h"
#include "inputs.h"
#include "report_lines.h"
#include "tolerance.h"

namespace labkit {

ExerciseVerdict Verdict(const Exercise& ex, Finding finding) {
  ExerciseVerdict v;
  static_cast<Finding&>(v) = std::move(finding);
  v.id = ex.id;
  return v;
}

ExerciseVerdict BuildFailureVerdict(const Exercise& ex, const BuildOutcome& build) {
  return Verdict(ex, {GradeStatus::kCompileError, build.timed_out ? "compile_timeout" : build.stage,
                      build.message});
}

bool Replayed(const Exercise& exercise) { return !exercise.kernel.empty(); }


HarnessOptions CheckRunOptions(const GradeEnv& env, const std::string& run_id, bool replay) {
  HarnessOptions options;
  options.exercise = run_id;
  options.replay = replay;
  options.exact_layout = true;
  options.emu_kernels_json = env.kernels_json;
  options.timeout_seconds = env.spec.limits.RunSeconds();
  return options;
}

void UseDefaultRecordings(const GradeEnv& env, const BuildOutcome& build, HarnessOptions& options) {
  const auto default_build = env.builds.find(Flavour::kDefault);
  if (default_build == env.builds.end() || !default_build->second.ok) return;
  if (default_build->second.executable != build.executable)
    options.plans_from = default_build->second.executable;
}

bool IsTileMultiple(const Shape& s, int64_t tile) {
  return tile > 0 && s.m % tile == 0 && s.n % tile == 0 && s.k % tile == 0;
}

std::string CaseName(const MatrixCase& c) {
  const auto d = c.id.find("_dataset_");
  if (d != std::string::npos)
    return "dataset " + c.id.substr(d + 9) + " (" + ShapeText(c.shape) + ")";
  return "case " + ShapeText(c.shape) + " (m x n x k)";
}

namespace {

// A launch configuration no GPU accepts, said plainly. CUDA itself reports these differently by
// version (cudaErrorInvalidConfiguration, or cudaErrorInvalidValue on CUDA 13), so the grader reads
// the configuration from the launch record and gives the same message on every backend.
std::string BadLaunchConfiguration(const CaseRun& r) {
  for (const LaunchInfo& l : r.launches) {
    const long long threads = l.block[0] * l.block[1] * l.block[2];
    const std::string kernel = FunctionName(l.kernel);
    auto dims = [](const long long* d) {
      return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
    };
    if (threads > 1024)
      return kernel + " was launched with blocks of " + dims(l.block) + " = " +
             std::to_string(threads) + " threads; a block holds at most 1024 threads.";
    if (threads == 0 || l.grid[0] * l.grid[1] * l.grid[2] == 0)
      return kernel + " was launched with a grid of " + dims(l.grid) + " blocks of " +
             dims(l.block) +
             " threads: no dimension may be 0 (does the grid size round down to 0 "
             "for small matrices? use (k - 1) / TILE + 1).";
  }
  return "";
}

// That the device-memory budget refused an allocation (common/harness/device_memory_budget.h), on
// a line of its own after a failure; else "". Taken from the refusal the harness reported on its
// case lines (the record's first), never from what the process printed, which the student's code
// can print too.
std::string DeviceMemoryRefusal(const HarnessRun& run) {
  std::optional<MemoryRefusal> refusal = run.record_memory_refused;
  for (const CaseRun& c : run.cases)
    if (!refusal) refusal = c.memory_refused;
  return refusal ? "\n" + MemoryRefusalText(*refusal) : "";
}

// The usual cause of a CUDA error the runtime returned, for the student; "" for the others.
std::string CudaErrorHint(const std::string& error) {
  if (error == "cudaErrorMemoryAllocation")
    return " Usual cause: device memory allocated on every call and never freed (a cudaMalloc "
           "without its cudaFree), or far more of it than the matrices need.";
  if (error == "cudaErrorIllegalAddress" || error == "cudaErrorInvalidAddressSpace")
    return " Usual cause: an index outside A, B or C (a missing bounds check).";
  if (error == "cudaErrorLaunchFailure")
    return " Usual cause: the kernel faulted or broke a barrier rule.";
  return "";
}

// What went wrong in case `i` before its values could be looked at; passed when it ran cleanly.
Finding RunFailure(GradeEnv& env, const HarnessRun& run, const std::vector<MatrixCase>& cases,
                   std::size_t i, const std::string& executable) {
  auto failed = [](const char* cause, std::string message) -> Finding {
    return {GradeStatus::kFailed, cause, std::move(message)};
  };
  if (!run.harness_error.empty())
    return {GradeStatus::kGraderError, "harness_failed",
            "the grader's harness failed on its own: " + run.harness_error};
  const CaseRun& r = run.cases[i];
  const std::string name = CaseName(cases[i]);
  if (r.status == case_status::kNotRecorded) return NotRecorded(run, name);
  if (!run.process.started)  // the kit could not start its own program: not the student's doing
    return {GradeStatus::kGraderError, "harness_not_started",
            "the grader could not start the harness: " + run.process.start_error};
  const nlohmann::json* diagnostic = EmuDiagnosticFor(run, r);
  if (!r.reported) {
    if (diagnostic != nullptr)
      return failed("emu_diagnostic",
                    DescribeEmuDiagnostic(*diagnostic, executable, &env.runner, &cases[i].shape) +
                        " (while running " + name + ")");
    const bool timed_out = run.process.timed_out;
    return {timed_out ? GradeStatus::kTimeout : GradeStatus::kCrashed,
            timed_out ? "timeout" : "crashed",
            "while running " + name + ", " + DescribeDeath(run.process)};
  }
  if (r.status == case_status::kReplayRefused)
    return failed("replay_refused",
                  "in " + name + ", your function asked for " + r.detail +
                      ". The grader repeats the device work your function asks for "
                      "(allocations, copies, cudaMemset, cudaMemcpyToSymbol and kernel launches) "
                      "on inputs your function never saw; it cannot repeat this.");
  // The CPU backend says why a launch failed (a barrier only some threads reach, a host pointer):
  // more use to a student than the bare error code the runtime returned.
  if (r.status != case_status::kOk && diagnostic != nullptr)
    return failed("emu_diagnostic",
                  DescribeEmuDiagnostic(*diagnostic, executable, &env.runner, &cases[i].shape) +
                      " (in " + name + ")");
  if (r.status == case_status::kCudaError) {
    const std::string config = BadLaunchConfiguration(r);
    if (!config.empty())
      return failed("launch_configuration",
                    "the launch failed in " + name + " (" + r.error + "): " + config);
    return failed("cuda_error", "CUDA error " + r.error + " in " + name + ": " + r.detail + "." +
                                    CudaErrorHint(r.error));
  }
  if (r.status == case_status::kStudentException)
    return failed("student_exception", "in " + name + ", " + r.detail + ".");
  if (r.status == case_status::kGuardViolation)
    return failed("guard_violation",
                  "in " + name + ", " + r.detail +
                      ". Usual cause: a store into C without a bounds check (row < m && col < k).");
  if (r.status == case_status::kInputModified)
    return failed("input_modified",
                  "in " + name + ", " + r.detail + ": A and B are inputs; write only to C.");
  if (r.status == "reported_twice" || r.status.empty())
    return failed("report_tampered",
                  "in " + name + ", the grader's report of the case (response.jsonl) is " +
                      (r.status.empty() ? "unreadable (a field of the wrong type)"
                                        : "there twice") +
                      ": something in the submission wrote to the grader's files.");
  if (r.status != case_status::kOk)
    return failed("harness_status", "in " + name + ": the harness reported " + r.status);
  return {};
}

// Values the function's host code copied to the device: in a replay they are what the host made
// for the record run's inputs, not for these. "" when it copied none.
std::string HostValuesHint(const CaseRun& r) {
  long long bytes = 0;
  for (const TransferInfo& t : r.transfers)
    if (t.kind == "host_to_device" && t.call.find("Symbol") == std::string::npos) bytes += t.bytes;
  if (bytes == 0) return "";
  return "Your function copied " + std::to_string(bytes) +
         " bytes from host memory to the device. The grader repeats the device work your function "
         "asks for on inputs it never saw, so values made on the host (a product computed on the "
         "CPU, or kept from an earlier call) do not fit them: compute C in your kernels.\n";
}

// Which cases of a run passed, for the hints across cases (CauseAcrossCases); the cases that did
// not run cleanly are left out, since their values say nothing.
std::vector<CaseSummary> CaseSummaries(ToleranceModel model, const HarnessRun& run,
                                       const std::vector<MatrixCase>& cases) {
  std::vector<CaseSummary> summaries;
  for (std::size_t i = 0; i < cases.size() && i < run.cases.size(); ++i) {
    if (!run.cases[i].reported || run.cases[i].status != case_status::kOk) continue;
    const auto check = CheckProduct(model, cases[i].shape, cases[i].A, cases[i].B, run.cases[i].C);
    if (check.ok()) summaries.push_back({cases[i].shape, check->passed(), false});
  }
  return summaries;
}

// What the case's launches tell the diagnosis: how many there were and, for one launch of a 2-D
// (or 1-D) grid, the threads it had along x and y.
DiagnosisOptions LaunchOptions(const Exercise& ex, const CaseRun& r) {
  DiagnosisOptions options;
  options.kernel = !ex.kernel.empty();
  if (!options.kernel) return options;
  options.launches = static_cast<int64_t>(r.launches.size());
  if (r.launches.size() != 1) return options;
  const LaunchInfo& l = r.launches.front();
  if (l.grid[2] * l.block[2] != 1) return options;
  auto dims = [](const long long* d) {
    return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
  };
  options.threads = {l.grid[0] * l.block[0], l.grid[1] * l.block[1],
                     FunctionName(l.kernel) + " was launched with a grid of " + dims(l.grid) +
                         " blocks of " + dims(l.block) + " threads"};
  return options;
}

// When case `i` has nothing written, another failing case may show more: a guard that skips row 0
// leaves a 1 x 1 C empty, which alone looks like a kernel never launched. The first other failing
// case with some elements written and a recognised pattern gives the cause; else `fallback`.
std::string CauseInAnotherCase(const GradeEnv& env, const Exercise& ex, ToleranceModel model,
                               const HarnessRun& run, const std::vector<MatrixCase>& cases,
                               std::size_t i, const std::string& fallback) {
  for (std::size_t j = 0; j < cases.size() && j < run.cases.size(); ++j) {
    if (j == i || !run.cases[j].reported || run.cases[j].status != case_status::kOk) continue;
    const auto check = CheckProduct(model, cases[j].shape, cases[j].A, cases[j].B, run.cases[j].C);
    if (!check.ok() || check->passed() || NothingWritten(*check)) continue;
    const std::string cause = ValueCause(*check, env.spec.tile, LaunchOptions(ex, run.cases[j]));
    if (!cause.empty()) return CaseName(cases[j]) + " shows more: " + cause;
  }
  return fallback;
}

// Case `i`'s values against the model, or "" when they are right. The first line names the
// cause: a pattern across the cases (wrong only when n is not a multiple of TILE...), else one
// in this case's values, else how many elements are wrong.
std::string ValueFailure(const GradeEnv& env, const Exercise& ex, ToleranceModel model,
                         Flavour flavour, const HarnessRun& run,
                         const std::vector<MatrixCase>& cases, std::size_t i) {
  const MatrixCase& c = cases[i];
  auto check = CheckProduct(model, c.shape, c.A, c.B, run.cases[i].C);
  if (!check.ok()) return "in " + CaseName(c) + ": " + check.error();
  if (check->passed()) return "";
  const std::string build =
      flavour == Flavour::kDefault
          ? ""
          : " (in the build with fused multiply-add off, which must match the sequential float "
            "sum bit for bit: keep the inner index ascending and accumulate in one float)";
  const Diagnosis d = Diagnose(*check, c.A, c.B, env.spec.tile, LaunchOptions(ex, run.cases[i]));
  // Across cases only in the default build: without fused multiply-add, any sum taken in another
  // order is wrong, whatever the shape.
  const std::string across = flavour == Flavour::kDefault
                                 ? CauseAcrossCases(CaseSummaries(model, run, cases), env.spec.tile)
                                 : "";
  // A case that shows nothing (all of C unwritten, or a C too small for any pattern: 1 x 1) takes
  // the cause another failing case shows. A larger C without a pattern keeps its silence: another
  // case's weaker pattern would be a guess about this one.
  constexpr int64_t kFewestForAPattern = 4;
  const bool too_small = d.cause.empty() && check->checked < kFewestForAPattern;
  const std::string cause = NothingWritten(*check) || too_small
                                ? CauseInAnotherCase(env, ex, model, run, cases, i, d.cause)
                                : d.cause;
  // Values the host made explain everything else: they belong to other inputs.
  std::string host = HostValuesHint(run.cases[i]);
  if (!host.empty()) host.pop_back();
  // Without fused multiply-add, C that is exactly the fused sum came from an explicit fmaf: the
  // advice to keep the index ascending in one float would miss it, the student having done so.
  if (host.empty() && flavour != Flavour::kDefault &&
      IsFusedSequentialProduct(c.shape, c.A, c.B, run.cases[i].C))
    host =
        "C is exactly the sum with a fused multiply-add at every step (fmaf, __fmaf_rn or "
        "fma in the inner loop): this build must match a * b rounded, then added; write "
        "sum += a * b";
  // A cause the launch or the values show outranks a pattern across cases.
  const bool definite = d.definite && cause == d.cause;
  const std::string headline = !host.empty()     ? host
                               : definite        ? cause
                               : !across.empty() ? across
                               : !cause.empty()  ? cause
                                                 : d.summary;
  // The details open with the summary: not twice when it is the headline.
  const std::string details =
      headline == d.summary ? d.details.substr(d.summary.size() + 1) : d.details;
  std::string text = "wrong result in " + CaseName(c) + build + ": " + headline + "\n" + details;
  if (!across.empty() && !cause.empty() && headline != cause) text += cause + "\n";
  return text;
}

}  // namespace

Finding NotRecorded(const HarnessRun& run, const std::string& name) {
  const ProcessResult& p = run.record_process;
  if (!p.started)
    return {GradeStatus::kGraderError, "harness_not_started",
            "the grader could not run your function: " + p.start_error};
  if (run.record_finished)
    return {GradeStatus::kFailed, "record_removed",
            "in " + name +
                ", the grader's record of what your function did is missing: something in the "
                "submission removed or replaced the grader's files."};
  return {p.timed_out ? GradeStatus::kTimeout : GradeStatus::kCrashed,
          p.timed_out ? "timeout" : "crashed",
          "while your function ran for " + name + ", " + DescribeDeath(p)};
}

// The first problem over all cases, in case order; passed when every case ran and is right.
Finding FirstFailure(GradeEnv& env, const Exercise& ex, const HarnessRun& run,
                     const std::vector<MatrixCase>& cases, ToleranceModel model, Flavour flavour,
                     const std::string& executable, std::size_t* failed_case) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Finding failure = RunFailure(env, run, cases, i, executable);
    if (failure.passed()) {
      std::string values = ValueFailure(env, ex, model, flavour, run, cases, i);
      if (values.empty()) continue;
      failure = {GradeStatus::kFailed, kWrongResultCause, std::move(values)};
    }
    failure.message += DeviceMemoryRefusal(run);
    if (failed_case != nullptr) *failed_case = i;
    return failure;
  }
  if (!run.done && run.harness_error.empty()) {
    const bool timed_out = run.process.timed_out;
    return {timed_out ? GradeStatus::kTimeout : GradeStatus::kCrashed,
            timed_out ? "timeout" : "crashed",
            "after the last case, " + DescribeDeath(run.process)};
  }
  return {};
}

std::vector<MatrixCase> CasesFor(const GradeEnv& env, const Exercise& ex) {
  std::vector<MatrixCase> cases;
  const ShapeList* list = env.spec.FindShapes(ex.shapes);
  // A dataset runs only where the exercise's own shapes admit it: when they are all multiples of
  // TILE, or all squares (lab 01's one-block kernel), the dataset must be one too.
  bool multiples_only = true, squares_only = true;
  int64_t largest_square = 0;
  int index = 0;
  for (const Shape& s : list->shapes) {
    const int64_t t = env.spec.tile;
    multiples_only = multiples_only && IsTileMultiple(s, t);
    squares_only = squares_only && s.m == s.n && s.n == s.k;
    largest_square = std::max(largest_square, s.m);
    MatrixCase c;
    c.id = ex.id + "_" + std::to_string(index++);
    c.shape = s;
    ProductInputs in = GenerateProductInputs(env.seed, c.id, s, ValueKind::kFullMantissa);
    c.A = std::move(in.a);
    c.B = std::move(in.b);
    cases.push_back(std::move(c));
  }
  for (const Dataset& d : env.datasets) {
    const int64_t t = env.spec.tile;
    const Shape& s = d.shape;
    const bool fits = (!multiples_only || IsTileMultiple(s, t)) &&
                      (!squares_only || (s.m == s.n && s.n == s.k && s.m <= largest_square));
    if (!fits) continue;
    cases.push_back({ex.id + "_dataset_" + d.name, d.shape, d.A, d.B});
  }
  // Last, so that a kernel wrong at a listed shape is still named there first.
  for (MatrixCase& c : DrawnCases(env, ex)) cases.push_back(std::move(c));
  return cases;
}

}  // namespace labkit
