// Grading one submission end to end: build it (build_plan.h), read the kernels' resources, grade
// each exercise, time the speed exercise, score, and assemble the result every report writer
// reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "backend.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "report.h"

namespace labkit {

struct GradeRequest {
  std::string src_dir;
  std::string submission_name;  // for reports: the folder's name unless told otherwise
  Backend backend = Backend::kCpu;
  uint64_t seed = 0;
  std::string work_dir;  // scratch, created if missing
  // Progress lines for a person watching ("building the default flavour..."); may be empty.
  std::function<void(const std::string&)> progress;
  // CPU backend: also build under ThreadSanitizer and name the lines of any race (--tsan).
  bool thread_sanitizer = false;
  // Tests only: build without the symbol allow-list (symbol_policy.h), so that a hostile case can
  // test the sandbox behind it, as code that reaches a system call without naming it would.
  bool check_symbols = true;
  // A batch measures the reference solution's speed once for all submissions; null: per call.
  class ReferenceTimingCache* reference_cache = nullptr;
};

// The absolute, normal form of a submission folder given on the command line, without a trailing
// slash, and the name reports give it: "class/ana/" is "ana", not "".
std::string SubmissionFolder(const std::string& dir);
std::string SubmissionNameOf(const std::string& dir);

// What scoring reads of one exercise's verdict: each build that ran, the one the deciding check
// failed on carrying the failure, and a technique failure apart (core/scoring.h).
struct ExerciseVerdict;  // exercise_grader.h
ExerciseOutcome ToOutcome(const ExerciseVerdict& verdict);

GradeResult GradeSubmission(ProcessRunner& runner, const Manifest& manifest, const LabSpec& spec,
                            const GradeRequest& request);

}  // namespace labkit
