// Speed, on a GPU only: the student's kernel and the kit's rows kernel timed side by side in one
// process, the reference solution likewise in the same grading run, so the score is a ratio of
// ratios and means the same on any GPU.
#pragma once

#include <mutex>
#include <string>

#include "exercise_grader.h"
#include "scoring.h"

namespace labkit {

struct SpeedOutcome {
  // kGraderError when the kit's own side (the reference solution) could not be built or timed.
  SpeedMeasurement::Kind kind = SpeedMeasurement::Kind::kNotMeasured;
  std::string message;
  std::string cause;  // kFailed, kGraderError: a short key (scoring.h)
  double student_ms = 0;
  double baseline_ms = 0;           // the kit's rows kernel, same process as the student's
  double reference_ms = 0;
  double reference_baseline_ms = 0; // the kit's rows kernel, same process as the reference's
  double speedup() const { return student_ms > 0 ? baseline_ms / student_ms : 0; }
  double reference_speedup() const {
    return reference_ms > 0 ? reference_baseline_ms / reference_ms : 0;
  }
};

// The reference solution's timing, measured once and shared by every submission of a batch (both
// of its numbers are ratios to the rows kernel measured beside it, so they do not go stale).
class ReferenceTimingCache {
 public:
  // Runs `measure` the first time only; later calls get its result.
  template <class F>
  std::string Get(F measure, double& reference_ms, double& reference_baseline_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!done_) {
      error_ = measure(reference_ms_, reference_baseline_ms_);
      done_ = error_.empty();  // a failure is retried by the next submission
    }
    reference_ms = reference_ms_;
    reference_baseline_ms = reference_baseline_ms_;
    return error_;
  }

 private:
  std::mutex mutex_;
  bool done_ = false;
  std::string error_;
  double reference_ms_ = 0, reference_baseline_ms_ = 0;
};

// `exercise_passed`: whether the timed exercise passed correctness (speed counts only then).
SpeedOutcome GradeSpeed(GradeEnv& env, bool exercise_passed);

}  // namespace labkit
