// Speed, on a GPU only: the student's kernel and the kit's rows kernel timed side by side in one
// process, the reference solution likewise in the same grading run, so the score is a ratio of
// ratios and means the same on any GPU.
#pragma once

#include <string>

#include "exercise_grader.h"

namespace labkit {

struct SpeedOutcome {
  std::string status;  // measured | not_measured | failed
  std::string message;
  double student_ms = 0;
  double baseline_ms = 0;           // the kit's rows kernel, same process as the student's
  double reference_ms = 0;
  double reference_baseline_ms = 0; // the kit's rows kernel, same process as the reference's
  double speedup() const { return student_ms > 0 ? baseline_ms / student_ms : 0; }
  double reference_speedup() const {
    return reference_ms > 0 ? reference_baseline_ms / reference_ms : 0;
  }
};

// `exercise_passed`: whether the timed exercise passed correctness (speed counts only then).
SpeedOutcome GradeSpeed(GradeEnv& env, bool exercise_passed);

}  // namespace labkit
