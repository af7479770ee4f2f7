// The race checks of GradeExercises (exercise_checks.h): on the CPU backend other thread orders
// and ThreadSanitizer, on the GPU backend compute-sanitizer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "diagnosis.h"
#include "diagnostics_text.h"
#include "exercise_checks.h"
#include "sanitizer_end.h"
#include "store_pattern.h"
#include "tolerance.h"
#include "tsan_report.h"

namespace labkit {

namespace {

// A run under a sanitizer (ThreadSanitizer, compute-sanitizer) is many times slower than a plain
// one: its own limit, the kit's, not the lab's run_seconds.
constexpr double kSanitizerRunSeconds = 300;

// The exact product at C(row, col) and its forward-error bound, for telling a summation-order
// difference from a race.
std::pair<double, double> ReferenceAndBound(const MatrixCase& c, int64_t row, int64_t col) {
  double sum = 0, abs_sum = 0;
  for (int64_t i = 0; i < c.shape.n; ++i) {
    const double term = static_cast<double>(c.A[row * c.shape.n + i]) * c.B[i * c.shape.k + col];
    sum += term;
    abs_sum += std::fabs(term);
  }
  return {sum, ForwardErrorBound(c.shape.n, abs_sum)};
}

// CPU backend: the same build run with other thread orders between barriers must give the same
// bits. A difference means threads read shared memory before (or after) it was meant to be, or
// several threads add into one element in an order that is not fixed (kThreadOrderCause). A run
// in another order that failed otherwise (a fault, a barrier only some threads reach) gives its
// own finding.
Finding OrderFailure(GradeEnv& env, const Exercise& ex, const std::vector<MatrixCase>& cases,
                     const HarnessRun& forward, const std::string& executable,
                     const std::string& dir) {
  const std::vector<std::string> orders = {"reverse", "random:" + std::to_string(env.seed)};
  for (const std::string& order : orders) {
    HarnessOptions options = CheckRunOptions(env, ex.id, Replayed(ex));
    options.emu_order = order;
    const HarnessRun run = RunHarness(
        env.runner, executable, dir + "/order_" + order.substr(0, order.find(':')), options, cases);
    Finding failure = FirstFailure(env, ex, run, cases, env.spec.tolerance.model,
                                   Flavour::kDefault, executable);
    if (!failure.passed() && failure.cause != kWrongResultCause) {
      failure.message = "with threads run in " + order + " order: " + failure.message;
      return failure;
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& a = forward.cases[i].C;
      const auto& b = run.cases[i].C;
      for (std::size_t e = 0; e < a.size() && e < b.size(); ++e) {
        if (std::memcmp(&a[e], &b[e], sizeof(float)) == 0) continue;
        const int64_t row = static_cast<int64_t>(e) / cases[i].shape.k;
        const int64_t col = static_cast<int64_t>(e) % cases[i].shape.k;
        const auto [reference, bound] = ReferenceAndBound(cases[i], row, col);
        // FormatNumber prints as many digits as tell two floats apart: with six, both values of
        // a summation-order difference read the same.
        std::ostringstream msg;
        // Right values in the wrong places: threads whose index lands on the same element, the
        // last to store winning. No barrier has anything to do with it.
        const auto check =
            CheckProduct(env.spec.tolerance.model, cases[i].shape, cases[i].A, cases[i].B, a);
        if (const auto misplaced = check.ok() ? MisplacedValues(*check) : std::nullopt) {
          msg << "several threads store into the same element of C, so the result depends on the "
                 "order in which they run: in "
              << CaseName(cases[i]) << ", C at row " << row << ", column " << col << " is "
              << FormatNumber(a[e]) << " when a block's threads run first to last, but "
              << FormatNumber(b[e]) << " in " << order << " order. "
              << MisplacedCause(*check, *misplaced);
          return {GradeStatus::kFailed, kThreadOrderCause, msg.str()};
        }
        msg << "the result depends on the order in which threads run: in " << CaseName(cases[i])
            << ", C at row " << row << ", column " << col << " is " << FormatNumber(a[e])
            << " when a block's threads run first to last between barriers, but "
            << FormatNumber(b[e]) << " in " << order << " order. "
            << OrderCauseText(ClassifyOrderDifference(a[e], b[e], reference, bound));
        return {GradeStatus::kFailed, kThreadOrderCause, msg.str()};
      }
    }
  }
  return {};
}

// The first lines of a sanitizer's log, for a person to read after a message; "" when empty.
std::string LogExcerpt(const std::string& log) {
  return log.empty() ? "" : " Its log begins:\n" + log.substr(0, 1500);
}

// A sanitizer's run that ended neither clean nor with a finding: nothing was cleared, so it is no
// pass; and as the kit cannot tell its tool failing from the program ending the run on purpose,
// it is not graded rather than a zero (a person looks). `tool` names the check in the message.
Finding IncompleteSanitizerRun(const HarnessRun& run, SanitizerEnd end, const std::string& tool) {
  if (end == SanitizerEnd::kHarnessError)
    return {GradeStatus::kGraderError, "harness_failed",
            "the grader's harness failed on its own under " + tool + ": " + run.harness_error};
  // A replay that never started: its record run is what ended early.
  const ProcessResult& ended = run.process.started ? run.process : run.record_process;
  return {GradeStatus::kGraderError, "sanitizer_incomplete",
          "the run under " + tool + " did not finish (" + ended.Describe() +
              "), so it neither found nor cleared anything; not graded." +
              LogExcerpt(run.sanitizer_log)};
}

// CPU backend, --tsan: the ThreadSanitizer build on the small cases; passed when it found no
// race, kDataRaceCause with the racing lines when it did. Whether it found one is the exit
// status TSan ends the process with (sanitizer_end.h); its log only says where. A build that
// failed is only a note, as before: the source can tell the TSan build apart anyway
// (__SANITIZE_THREAD__), so refusing it would close nothing.
Finding ThreadSanitizerFinding(GradeEnv& env, const Exercise& ex,
                               const std::vector<MatrixCase>& cases, const std::string& dir,
                               std::vector<std::string>* notes) {
  auto note = [&](const std::string& text) {
    if (notes != nullptr) notes->push_back("ThreadSanitizer check not run: " + text);
    return Finding{};
  };
  const BuildOutcome& build = env.builds.at(Flavour::kThreadSanitizer);
  if (!build.ok) return note("its build failed: " + build.message.substr(0, 300));
  // Two or three tile phases and partial tiles show a missing barrier; TSan makes every access
  // several times slower, so larger cases would only cost time.
  std::vector<MatrixCase> small;
  for (const MatrixCase& c : cases)
    if (c.shape.m * c.shape.n * c.shape.k <= 32 * 32 * 32) small.push_back(c);
  if (small.empty() && !cases.empty())
    small.push_back(*std::min_element(cases.begin(), cases.end(), [](const auto& a, const auto& b) {
      return a.shape.m * a.shape.n * a.shape.k < b.shape.m * b.shape.n * b.shape.k;
    }));
  HarnessOptions options = CheckRunOptions(env, ex.id, Replayed(ex));
  options.thread_sanitizer = true;
  options.timeout_seconds = kSanitizerRunSeconds;
  UseDefaultRecordings(env, build, options);
  const HarnessRun run = RunHarness(env.runner, build.executable, dir + "/tsan", options, small);
  const SanitizerEnd end = ClassifySanitizerEnd(run, kThreadSanitizerFoundExitCode);
  if (end == SanitizerEnd::kClean) return {};
  if (end == SanitizerEnd::kNotStarted)  // the grader's own fault, which the program cannot cause
    return note("the grader could not start it (" + run.process.Describe() + ")");
  if (end != SanitizerEnd::kFound) return IncompleteSanitizerRun(run, end, "ThreadSanitizer");
  const std::string races = DescribeDataRaces(
      ParseThreadSanitizerLog(run.sanitizer_log, env.spec.student_files), env.src_dir);
  if (!races.empty()) return {GradeStatus::kFailed, kDataRaceCause, races};
  // TSan's status with no race to show: TSan could not run here (it dies with the same status
  // when it cannot start), or its report was taken away. Neither is a pass, nor a zero.
  return {GradeStatus::kGraderError, "sanitizer_unreadable",
          "ThreadSanitizer ended the program with its status for a finding (" +
              run.process.Describe() +
              ") but left no data-race report the grader could read; not graded." +
              LogExcerpt(run.sanitizer_log)};
}

}  // namespace

Finding CpuRaceFailure(GradeEnv& env, const Exercise& ex, const std::vector<MatrixCase>& cases,
                       const HarnessRun& forward, const std::string& executable,
                       const std::string& dir, std::vector<std::string>* notes) {
  Finding order = OrderFailure(env, ex, cases, forward, executable, dir);
  const bool order_dependent = order.cause == kThreadOrderCause;
  if (!env.thread_sanitizer) {
    if (order_dependent)
      order.message += " (labgrade check with --tsan names the two lines that race.)";
    return order;
  }
  if (!order.passed() && !order_dependent) return order;
  Finding tsan = ThreadSanitizerFinding(env, ex, cases, dir, notes);
  if (tsan.passed()) return order;
  // A TSan run that could not be judged does not hide what the thread orders showed.
  if (tsan.cause != kDataRaceCause) return order.passed() ? tsan : order;
  // The racing lines name the cause better than the element that changed, which they explain.
  if (!order.passed()) tsan.message = order.message + "\n\n" + tsan.message;
  return tsan;
}

// Racecheck runs on the small cases only: two or three tile phases and partial tiles are enough to
// expose a missing barrier, and racecheck's cost grows with every thread.
std::vector<MatrixCase> SanitizerCases(const std::string& tool,
                                       const std::vector<MatrixCase>& cases) {
  if (tool != "racecheck") return cases;
  std::vector<MatrixCase> small;
  for (const MatrixCase& c : cases)
    if (c.shape.m * c.shape.n * c.shape.k <= 32 * 32 * 32) small.push_back(c);
  return small;
}

HarnessOptions SanitizerOptions(const std::string& run_id, const std::string& tool, bool replay) {
  HarnessOptions options;
  options.exercise = run_id;
  options.replay = replay;
  options.exact_layout = true;  // exact allocations, so reads just past the end are seen
  options.sanitizer_tool = tool;
  options.timeout_seconds = kSanitizerRunSeconds;
  return options;
}

std::vector<NamedBuffer> HarnessBuffers(const HarnessRun& run,
                                        const std::vector<MatrixCase>& cases) {
  auto named = [&](const CaseRun& r) {
    const MatrixCase* shape = nullptr;
    for (const MatrixCase& c : cases)
      if (c.id == r.id) shape = &c;
    std::vector<NamedBuffer> buffers;
    for (const HarnessBuffer& b : r.buffers) {
      NamedBuffer n{b.matrix, b.matrix, "", b.address, b.bytes};
      if (shape != nullptr) {
        const Shape& s = shape->shape;
        const int64_t rows = b.matrix == "B" ? s.n : s.m, cols = b.matrix == "A" ? s.n : s.k;
        n.name += " (" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
        n.case_name = CaseName(*shape);
      }
      buffers.push_back(std::move(n));
    }
    return buffers;
  };
  std::vector<NamedBuffer> first, rest;
  for (auto r = run.cases.rbegin(); r != run.cases.rend(); ++r) {
    std::vector<NamedBuffer> own = named(*r);
    const bool faulted = first.empty() && !own.empty() && r->status != case_status::kOk;
    (faulted ? first : rest).insert((faulted ? first : rest).end(), own.begin(), own.end());
  }
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

Finding SanitizerFinding(const HarnessRun& run, const std::string& tool,
                         const std::vector<MatrixCase>& cases) {
  const SanitizerEnd end = ClassifySanitizerEnd(run, kComputeSanitizerFoundExitCode);
  if (end == SanitizerEnd::kClean) return {};
  if (end == SanitizerEnd::kFound)
    return {GradeStatus::kFailed, tool == "racecheck" ? kDataRaceCause : tool,
            SanitizerFindingText(run.sanitizer_log, tool, HarnessBuffers(run, cases))};
  if (end == SanitizerEnd::kNotStarted || (end == SanitizerEnd::kIncomplete && !HarnessSpoke(run)))
    return {GradeStatus::kGraderError, "sanitizer_unavailable",
            "compute-sanitizer could not run here: " + run.process.Describe() + "\n" +
                run.process.output.substr(0, 2000)};
  return IncompleteSanitizerRun(run, end, "compute-sanitizer " + tool);
}

Finding SanitizerFailure(GradeEnv& env, const Exercise& ex, const std::vector<MatrixCase>& cases,
                         const std::string& executable, const std::string& dir,
                         const std::vector<std::string>& tools) {
  for (const std::string& tool : tools) {
    const HarnessRun run =
        RunHarness(env.runner, executable, dir + "/" + tool,
                   SanitizerOptions(ex.id, tool, Replayed(ex)), SanitizerCases(tool, cases));
    Finding found = SanitizerFinding(run, tool, SanitizerCases(tool, cases));
    if (!found.passed()) return found;
  }
  return {};
}

// Wrong values can come from a race; the backend's race detector says so far more usefully than a
// list of wrong numbers, so it gets the first word.
Finding RaceBehindWrongValues(GradeEnv& env, const Exercise& ex,
                              const std::vector<MatrixCase>& cases, const HarnessRun& forward,
                              const std::string& executable, const std::string& dir) {
  const Finding race =
      Traits(env.backend).races_by_thread_order
          ? CpuRaceFailure(env, ex, cases, forward, executable, dir, nullptr)
          : SanitizerFailure(env, ex, cases, executable, dir + "/race", {"racecheck"});
  if (race.cause == kThreadOrderCause || race.cause == kDataRaceCause) return race;
  return {};
}

}  // namespace labkit
