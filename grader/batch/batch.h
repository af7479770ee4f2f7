// `labgrade grade`: a whole class in one command. Builds and correctness runs go in parallel
// (--jobs), timed runs one at a time on each GPU (GpuGateRunner), each submission's result is
// written as soon as it is known and recorded in a journal, so the same command resumes a batch
// that was killed, and a grader fault is "not graded" (retried on resume), never a student's zero.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "result.h"

namespace labkit {

struct BatchOptions {
  std::string submissions_dir;
  std::string out_dir;
  int jobs = 1;
  Backend backend = Backend::kCpu;
  // The seed of a new batch. A batch already in out_dir's journal keeps the seed it started with;
  // `seed_given` (--seed on the command line) that differs from it is refused.
  uint64_t seed = 0;
  bool seed_given = false;
  // Recorded in the journal; resuming with another version is refused unless regrade_all.
  std::string kit_version;
  // The most one submission may take, all of its commands together (DeadlineRunner).
  double submission_seconds = 1800;
  bool regrade_all = false;
  std::vector<std::string> regrade;  // names (or slugs) to grade again even if recorded
  bool progress_bar = false;         // a live bar (a terminal) or one plain line per submission
};

struct BatchCounts {
  int total = 0;
  int graded = 0;      // this run
  int not_graded = 0;  // this run: grader faults
  int skipped = 0;     // already in the journal
};

// `folder` absolute, normalised, without a trailing slash ("class/" -> "/home/me/class").
std::string AbsoluteFolder(const std::string& folder);

// Grades every submission of `options.submissions_dir`; writes into `options.out_dir`:
//   results/<slug>/result.json      the full result (docs/RESULTS_SCHEMA.md)
//   results/<slug>/results.json     the same in Gradescope's format
//   results/<slug>/feedback.txt     the student's report, to be sent as it is (and .html)
//   journal.jsonl, gradebook.csv, summary.txt, class.html
Result<BatchCounts> GradeBatch(ProcessRunner& runner, const Manifest& manifest, const LabSpec& spec,
                               const BatchOptions& options);

}  // namespace labkit
