#include "batch.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "batch_warm_replays.h"
#include "class_page.h"
#include "deadline_runner.h"
#include "feedback.h"
#include "gpu_gate.h"
#include "grade.h"
#include "gradebook.h"
#include "journal.h"
#include "report.h"
#include "sandbox.h"
#include "speed_grader.h"
#include "submissions.h"

namespace labkit {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Why the kit, not the student, is to blame for this result; "" when it was graded properly.
std::string GraderFault(const GradeResult& r) {
  for (const auto& e : r.exercises)
    if (e.status == GradeStatus::kGraderError) return e.id + ": " + e.message;
  if (r.speed && r.speed->status == GradeStatus::kGraderError) return "speed: " + r.speed->message;
  return "";
}

class Progress {
 public:
  Progress(int total, bool bar) : total_(total), bar_(bar), start_(Clock::now()) {}

  void Done(const std::string& name, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    const int eta = done_ > 0 ? static_cast<int>(seconds / done_ * (total_ - done_)) : 0;
    if (bar_) {
      const int width = 30;
      const int filled = total_ > 0 ? width * done_ / total_ : width;
      std::fprintf(stderr, "\r[%s%s] %d/%d  ETA %dm%02ds  %-40.40s", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), done_, total_, eta / 60, eta % 60,
                   name.c_str());
      if (done_ == total_) std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "[%d/%d] %s: %s (ETA %dm%02ds)\n", done_, total_, name.c_str(),
                   what.c_str(), eta / 60, eta % 60);
    }
  }

 private:
  std::mutex mutex_;
  int total_;
  int done_ = 0;
  bool bar_;
  Clock::time_point start_;
};

struct BatchContext {
  ProcessRunner& runner;
  GpuGate& gpus;
  WarmReplayPool* warm_replays;  // null: every replay in a process of its own
  const Manifest& manifest;
  const LabSpec& spec;
  const BatchOptions& options;
  Journal& journal;
  uint64_t seed;  // the journal's: one class, one set of inputs
  ReferenceTimingCache reference;
  std::once_flag host_memory_warning;  // kKernelsReachHostMemory, said once a batch
};

// The seed and kit version this batch grades with: those in the journal when it resumes one.
Result<uint64_t> BatchSeed(const BatchOptions& options, Journal& journal) {
  const std::optional<BatchInfo>& recorded = journal.batch();
  if (!recorded) {
    const Status s = journal.RecordBatch({options.seed, options.kit_version});
    if (!s) return MakeError(s.error());
    std::fprintf(stderr,
                 "labgrade: seed %llu (kept in journal.jsonl: a resume grades on the same "
                 "inputs)\n",
                 static_cast<unsigned long long>(options.seed));
    return options.seed;
  }
  if (options.seed_given && options.seed != recorded->seed)
    return MakeError("this batch was started with seed " + std::to_string(recorded->seed) +
                     " (journal.jsonl); grading the rest with --seed " +
                     std::to_string(options.seed) +
                     " would grade one class on two input sets. Leave out --seed to resume, or "
                     "use a new --out");
  if (recorded->kit_version != options.kit_version) {
    if (!options.regrade_all)
      return MakeError("this batch was graded by labkit " + recorded->kit_version +
                       " (journal.jsonl) and this is labkit " + options.kit_version +
                       ": --regrade all grades everyone again with this version (same seed), or "
                       "use a new --out");
    const Status s = journal.RecordBatch({recorded->seed, options.kit_version});
    if (!s) return MakeError(s.error());
  }
  std::fprintf(stderr, "labgrade: resuming a batch: seed %llu, from journal.jsonl\n",
               static_cast<unsigned long long>(recorded->seed));
  return recorded->seed;
}

// One submission's journal entry; `kit_fault` is set when it was not graded for a fault of the
// grader's own (a check that could not be done, a file that could not be written), which a
// later try may not meet: not for one of the submission's (its time limit, a folder without
// sources).
JournalEntry GradeOne(BatchContext& ctx, const Submission& s, bool& kit_fault) {
  kit_fault = false;
  JournalEntry entry{s.slug, s.name, "not_graded", "", 0, 0};
  if (!s.problem.empty()) {
    entry.reason = s.problem;
    return entry;
  }
  const fs::path work = fs::path(ctx.options.out_dir) / "work" / s.slug;
  const fs::path results = fs::path(ctx.options.out_dir) / "results" / s.slug;
  try {
    fs::remove_all(work);
    fs::create_directories(work);
    fs::create_directories(results);
    std::string src = s.path;
    std::string unpack_problem;
    if (s.archive) {
      src = (work / "src").string();
      const Status unpacked = UnpackArchive(s.path, src);
      if (!unpacked) unpack_problem = "could not unpack " + fs::path(s.path).filename().string() +
                                      ": " + unpacked.error();
    }
    GradeRequest request;
    request.src_dir = FindSourceFolder(src, ctx.spec.student_files);
    request.submission_name = s.name;
    request.backend = ctx.options.backend;
    request.seed = ctx.seed;
    request.work_dir = (work / "grade").string();
    request.reference_cache = &ctx.reference;
    // Each submission in its own sandbox: it sees its own files and its scratch folder only.
    SandboxedProcessRunner sandboxed(
        ctx.runner, GradingSandboxPolicy(ctx.manifest, ctx.spec.id, request.src_dir,
                                         request.work_dir, {results.string()}));
    sandboxed.WarnOnce(std::cerr);
    GpuGateRunner on_a_gpu(ctx.gpus, sandboxed);  // outside: the sandbox builds the environment
    WarmReplayRunner replays(ctx.warm_replays, on_a_gpu);
    DeadlineRunner limited(replays, ctx.options.submission_seconds);
    const GradeResult result = GradeSubmission(limited, ctx.manifest, ctx.spec, request);

    if (result.device.pageable_memory_access == 1)
      std::call_once(ctx.host_memory_warning,
                     [] { std::cerr << "labgrade: warning: " << kKernelsReachHostMemory << "\n"; });
    const std::string fault = GraderFault(result);
    if (limited.Expired()) {
      // Some of its checks were cut short or never run: no score is honest, so none is given.
      entry.reason = "the submission went past its overall time limit of " +
                     std::to_string(static_cast<int>(limited.seconds())) +
                     " s (everything it runs together)";
    } else if (fault.empty()) {
      // Results first, journal last: a kill in between only means this one is graded again.
      Status w = WriteFileAtomically((results / "result.json").string(), ToJson(result).dump(2));
      if (w)
        w = WriteFileAtomically((results / "results.json").string(), ToGradescope(result).dump(2));
      if (w) w = WriteFileAtomically((results / "feedback.txt").string(), FeedbackText(result));
      if (w) w = WriteFileAtomically((results / "feedback.html").string(), FeedbackHtml(result));
      if (!w) {
        entry.reason = w.error();
        kit_fault = true;
      } else {
        entry.status = "graded";
        entry.reason = unpack_problem;
        entry.total = result.total;
        entry.max_total = result.max_total;
      }
    } else {
      entry.reason = fault;
      kit_fault = true;
    }
    fs::remove_all(work);
  } catch (const std::exception& e) {
    // Out of disk, a folder that vanished: the kit's trouble, recorded, retried on resume.
    entry.reason = std::string("the grader failed: ") + e.what();
    kit_fault = true;
  }
  return entry;
}

bool WantsRegrade(const BatchOptions& o, const Submission& s) {
  if (o.regrade_all) return true;
  for (const std::string& r : o.regrade)
    if (r == s.name || r == s.slug) return true;
  return false;
}

std::vector<GradebookRow> CollectRows(const BatchOptions& options,
                                      const std::vector<Submission>& submissions,
                                      const Journal& journal) {
  std::vector<GradebookRow> rows;
  for (const Submission& s : submissions) {
    GradebookRow row;
    const JournalEntry* e = journal.Find(s.slug);
    row.entry = e ? *e : JournalEntry{s.slug, s.name, "not_graded", "not graded yet", 0, 0};
    std::ifstream in(fs::path(options.out_dir) / "results" / s.slug / "result.json");
    if (in && row.entry.status == "graded") {
      const auto j = nlohmann::json::parse(in, nullptr, false);
      if (!j.is_discarded()) {
        auto r = GradeResultFromJson(j);
        if (r) row.result = std::move(*r);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string AbsoluteFolder(const std::string& folder) {
  fs::path absolute = fs::absolute(folder).lexically_normal();
  if (absolute.filename().empty()) absolute = absolute.parent_path();  // "marks/"
  return absolute.string();
}

Result<BatchCounts> GradeBatch(ProcessRunner& runner, const Manifest& manifest, const LabSpec& spec,
                               const BatchOptions& given) {
  // Absolute paths: the compilers and the harness run in other folders than labgrade's own, so a
  // relative class/ana/matmul.cu would name nothing there.
  BatchOptions options = given;
  options.submissions_dir = AbsoluteFolder(options.submissions_dir);
  options.out_dir = AbsoluteFolder(options.out_dir);
  auto submissions = FindSubmissions(options.submissions_dir);
  if (!submissions) return MakeError(submissions.error());
  std::error_code ec;
  fs::create_directories(fs::path(options.out_dir) / "results", ec);
  if (ec) return MakeError("cannot create " + options.out_dir + ": " + ec.message());
  auto journal = Journal::Open((fs::path(options.out_dir) / "journal.jsonl").string());
  if (!journal) return MakeError(journal.error());
  const Result<uint64_t> seed = BatchSeed(options, *journal);
  if (!seed) return MakeError(seed.error());

  // Several GPUs: commands spread over them, one timed run per GPU at a time. One GPU: left to the
  // environment, as a single `check` is.
  std::vector<std::string> gpus;
  if (options.backend == Backend::kGpu) gpus = VisibleGpus();
  if (gpus.size() < 2) gpus.clear();
  if (!gpus.empty())
    std::fprintf(stderr, "labgrade: spreading the work over %zu GPUs\n", gpus.size());
  GpuGate gate(gpus);
  BatchWarmReplays warm(runner, gate, manifest, spec, options);
  BatchContext ctx{runner, gate, warm.pool(), manifest, spec, options, *journal, *seed, {}};
  BatchCounts counts;
  counts.total = static_cast<int>(submissions->size());
  std::vector<const Submission*> todo;
  for (const Submission& s : *submissions) {
    const JournalEntry* done = journal->Find(s.slug);
    if (done && done->status == "graded" && !WantsRegrade(options, s)) {
      ++counts.skipped;
      continue;
    }
    todo.push_back(&s);
  }
  if (counts.skipped > 0)
    std::fprintf(stderr, "labgrade: %d of %d already graded (journal.jsonl); grading the other %zu\n",
                 counts.skipped, counts.total, todo.size());

  Progress progress(static_cast<int>(todo.size()), options.progress_bar);
  std::mutex counts_mutex;
  std::string journal_error;
  // Grades `pass` with up to `jobs` workers; returns those not graded for a fault of the kit's.
  auto grade_pass = [&](const std::vector<const Submission*>& pass, int jobs, bool retrying) {
    std::atomic<std::size_t> next{0};
    std::vector<const Submission*> faulted;
    auto worker = [&] {
      for (std::size_t i = next++; i < pass.size(); i = next++) {
        bool kit_fault = false;
        const JournalEntry entry = GradeOne(ctx, *pass[i], kit_fault);
        const Status recorded = ctx.journal.Append(entry);
        std::lock_guard<std::mutex> lock(counts_mutex);
        if (!recorded) journal_error = recorded.error();
        if (retrying) --counts.not_graded;  // counted once, as it ends now
        (entry.status == "graded" ? counts.graded : counts.not_graded)++;
        if (kit_fault) faulted.push_back(pass[i]);
        std::ostringstream what;
        if (entry.status == "graded")
          what << FormatPoints(entry.total) << " / " << FormatPoints(entry.max_total);
        else
          what << "NOT GRADED (" << entry.reason.substr(0, 80) << ")";
        if (!retrying) progress.Done(entry.name, what.str());
        if (retrying)
          std::fprintf(stderr, "labgrade: again: %s: %s\n", entry.name.c_str(), what.str().c_str());
      }
    };
    std::vector<std::thread> workers;
    const int count = std::max(1, std::min(jobs, static_cast<int>(pass.size())));
    for (int j = 0; j < count; ++j) workers.emplace_back(worker);
    for (auto& w : workers) w.join();
    return faulted;
  };
  const std::vector<const Submission*> faulted = grade_pass(todo, options.jobs, false);
  // A fault of the kit's often comes from the class's load (the GPU's counters kept busy by a
  // slow kernel, a context that could not be made): graded once more now, with the batch's load
  // gone. What fails again stays "not graded", for a resume to try.
  if (!faulted.empty() && journal_error.empty()) {
    std::fprintf(stderr,
                 "labgrade: %zu not graded for a fault of the grader's; grading them once more\n",
                 faulted.size());
    grade_pass(faulted, std::max(1, options.jobs / 4), true);
  }
  if (!journal_error.empty()) return MakeError(journal_error);

  const std::vector<GradebookRow> rows = CollectRows(options, *submissions, ctx.journal);
  Status w = WriteFileAtomically((fs::path(options.out_dir) / "gradebook.csv").string(),
                                 GradebookCsv(spec, rows));
  if (w)
    w = WriteFileAtomically((fs::path(options.out_dir) / "summary.txt").string(),
                            BatchSummary(spec, rows));
  if (w)
    w = WriteFileAtomically((fs::path(options.out_dir) / "class.html").string(),
                            ClassPageHtml(spec, rows));
  if (!w) return MakeError(w.error());
  fs::remove_all(fs::path(options.out_dir) / "work", ec);
  return counts;
}

}  // namespace labkit
