// scoring: a pure function from the lab's spec, what happened to each exercise, and the speed
// measurement, to points. Same inputs, same points (no clock, no randomness).
//
// - Correctness: an exercise's points are all or nothing over its cases in both builds (default
//   and -fmad=false), and nothing when a technique check failed (the reason is kept). Exercises
//   marked `given` are not scored.
// - Speed: with s = baseline_ms / student_ms and s_ref = reference_baseline_ms / reference_ms
//   (the reference solution measured in the same grading run),
//     points = speed.points * clamp((s - zero_at) / (full_at * s_ref - zero_at), 0, 1),
//   rounded to 2 decimals; only when the timed exercise passed. Not measured (CPU backend): the
//   item stays, score 0, status not_measured, and Scores::speed_not_measured is set.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lab_spec.h"
#include "result.h"

namespace labkit {

enum class GradeStatus {
  kPassed,
  kFailed,
  kNotMeasured,
  kCompileError,
  kCrashed,
  kTimeout,
  kGraderError,  // the kit failed, not the student: says so, scores 0
};

// What a check found, and the verdict it leads to: the status, a short key for the kind of
// failure chosen where it was decided (reports group by it, and a later check may ask for it), and
// the message for the student, made there from the same facts. No decision reads the message.
struct Finding {
  GradeStatus status = GradeStatus::kPassed;
  std::string cause;    // e.g. "wrong_result", "cuda_error", "thread_order"; "" when passed
  std::string message;  // "" when passed
  bool passed() const { return status == GradeStatus::kPassed; }
};

// "passed", "failed", "not_measured", "compile_error", "crashed", "timeout", "grader_error".
const char* ToString(GradeStatus status);
std::optional<GradeStatus> ParseGradeStatus(const std::string& text);

// One build of one exercise, over all of its cases.
struct FlavourOutcome {
  std::string flavour;  // "default" or "nofma"
  GradeStatus status = GradeStatus::kFailed;
  std::string message;  // for the student; empty when passed
  // A short key for the kind of failure ("wrong_result", "compile", "cuda_error"), chosen where
  // the failure was decided; "" when passed. Reports group by it and never by the message.
  std::string cause;
};

struct ExerciseOutcome {
  std::string id;
  // The builds that ran (a failure in the default build leaves the other unrun); an empty list
  // scores as "not run".
  std::vector<FlavourOutcome> flavours;
  std::string technique_failure;         // "" when the technique checks held (or none apply)
  std::vector<std::string> notes;        // checks that could not run here, said plainly
  bool unchecked = false;                // a check that decides points could not run here
};

struct SpeedMeasurement {
  // kGraderError: the kit could not time its own side (the reference solution did not build or
  // time): the item is the kit's fault, never the student's zero.
  enum class Kind { kMeasured, kNotMeasured, kFailed, kGraderError };
  Kind kind = Kind::kNotMeasured;
  double student_ms = 0;
  double baseline_ms = 0;  // the kit's given kernel, same process as the student's
  double reference_ms = 0;
  double reference_baseline_ms = 0;  // the kit's given kernel, same process as the reference's
  std::string message;               // why not measured, or what failed
  std::string cause;                 // kFailed, kGraderError: a short key, as FlavourOutcome's
};

struct ExerciseResult {
  std::string id;
  std::string title;
  GradeStatus status = GradeStatus::kFailed;
  double score = 0;
  double max_score = 0;
  std::string message;
  std::vector<std::string> notes;
  // Passed, but a check that decides points (the technique) could not run here: never shown or
  // counted as a plain pass (the report says so; --require full is not met).
  bool unchecked = false;
  std::string cause;  // why it failed, a short key (FlavourOutcome::cause); "" when passed
};

struct SpeedResult {
  std::string exercise;
  GradeStatus status = GradeStatus::kNotMeasured;  // passed when measured and above zero_at
  double score = 0;
  double max_score = 0;
  double student_ms = 0;
  double baseline_ms = 0;
  double reference_ms = 0;
  double reference_baseline_ms = 0;
  double speedup = 0;            // s
  double reference_speedup = 0;  // s_ref
  double target_speedup = 0;     // full_at * s_ref: full points from here
  std::string message;
  std::string cause;  // why it failed or was not graded, a short key; "" otherwise
};

struct Scores {
  std::vector<ExerciseResult> exercises;  // in lab.yaml's order, given ones left out
  std::optional<SpeedResult> speed;       // when the lab has a `speed` section
  double total = 0;
  double max_total = 0;
  bool speed_not_measured = false;  // show totals as "x / y (speed not measured)"
};

// x rounded to 2 decimals (half away from zero).
double RoundPoints(double x);

// speed.points * clamp((s - zero_at) / (full_at * s_ref - zero_at), 0, 1), rounded. When the
// reference is so slow in this run that full_at * s_ref <= zero_at, the ramp has no width: full
// points when s > zero_at, none otherwise.
double SpeedPoints(const Speed& speed, double speedup, double reference_speedup);

// Errors: an outcome for an exercise the lab does not have, or two for the same one.
Result<Scores> ScoreSubmission(const LabSpec& spec, const std::vector<ExerciseOutcome>& outcomes,
                               const SpeedMeasurement& speed);

}  // namespace labkit
