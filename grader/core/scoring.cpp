#include "scoring.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace labkit {
namespace {

struct StatusName {
  GradeStatus status;
  const char* name;
};
constexpr StatusName kStatusNames[] = {
    {GradeStatus::kPassed, "passed"},
    {GradeStatus::kFailed, "failed"},
    {GradeStatus::kNotMeasured, "not_measured"},
    {GradeStatus::kCompileError, "compile_error"},
    {GradeStatus::kCrashed, "crashed"},
    {GradeStatus::kTimeout, "timeout"},
    {GradeStatus::kGraderError, "grader_error"},
};

// Which flavour's verdict speaks for the exercise: the most basic failure first.
int Severity(GradeStatus s) {
  switch (s) {
    case GradeStatus::kCompileError:
      return 6;
    case GradeStatus::kGraderError:
      return 5;
    case GradeStatus::kTimeout:
      return 4;
    case GradeStatus::kCrashed:
      return 3;
    case GradeStatus::kFailed:
      return 2;
    case GradeStatus::kNotMeasured:
      return 1;
    case GradeStatus::kPassed:
      return 0;
  }
  return 0;
}

std::string Times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

ExerciseResult ScoreExercise(const Exercise& ex, const ExerciseOutcome* outcome) {
  ExerciseResult r;
  r.id = ex.id;
  r.title = ex.title;
  r.max_score = static_cast<double>(ex.points);
  if (!outcome || outcome->flavours.empty()) {
    r.status = GradeStatus::kGraderError;
    r.message = "the grader did not run this exercise (a bug in the kit, not in your code)";
    r.cause = "not_run";
    return r;
  }
  r.notes = outcome->notes;
  r.unchecked = outcome->unchecked;
  const FlavourOutcome* worst = &outcome->flavours.front();
  for (const FlavourOutcome& f : outcome->flavours)
    if (Severity(f.status) > Severity(worst->status)) worst = &f;
  r.status = worst->status;
  r.message = worst->message;
  r.cause = worst->cause;
  if (r.status != GradeStatus::kPassed) return r;
  if (!outcome->technique_failure.empty()) {
    r.status = GradeStatus::kFailed;
    r.message = "The results are right, but " + outcome->technique_failure + ".";
    r.cause = "technique";
    return r;
  }
  r.score = r.max_score;
  return r;
}

SpeedResult ScoreSpeed(const Speed& speed, const ExerciseResult* timed, const SpeedMeasurement& m) {
  SpeedResult r;
  r.exercise = speed.exercise;
  r.max_score = static_cast<double>(speed.points);
  r.student_ms = m.student_ms;
  r.baseline_ms = m.baseline_ms;
  r.reference_ms = m.reference_ms;
  r.reference_baseline_ms = m.reference_baseline_ms;
  if (m.kind == SpeedMeasurement::Kind::kGraderError) {
    r.status = GradeStatus::kGraderError;
    r.message = m.message;
    r.cause = m.cause.empty() ? "grader" : m.cause;
    return r;
  }
  if (m.kind == SpeedMeasurement::Kind::kNotMeasured) {
    r.status = GradeStatus::kNotMeasured;
    r.message =
        m.message.empty() ? "Speed is measured on a GPU only: not measured here." : m.message;
    return r;
  }
  if (!timed || timed->status != GradeStatus::kPassed) {
    r.status = GradeStatus::kFailed;
    r.message = "Speed counts only once exercise " + speed.exercise + " passes.";
    r.cause = "timed_exercise_failed";
    return r;
  }
  if (m.kind == SpeedMeasurement::Kind::kFailed) {
    r.status = GradeStatus::kFailed;
    r.message = m.message;
    r.cause = m.cause.empty() ? "timed_run_failed" : m.cause;
    return r;
  }
  if (!(m.student_ms > 0 && m.baseline_ms > 0 && m.reference_ms > 0 &&
        m.reference_baseline_ms > 0)) {
    r.status = GradeStatus::kGraderError;
    r.message = "the timing came back without usable times (a bug in the kit, not in your code)";
    r.cause = "unusable_times";
    return r;
  }
  r.speedup = m.baseline_ms / m.student_ms;
  r.reference_speedup = m.reference_baseline_ms / m.reference_ms;
  r.target_speedup = speed.full_at * r.reference_speedup;
  r.score = SpeedPoints(speed, r.speedup, r.reference_speedup);
  r.status = r.score > 0 ? GradeStatus::kPassed : GradeStatus::kFailed;
  if (r.status == GradeStatus::kFailed) r.cause = "too_slow";
  r.message = "Speedup " + Times(r.speedup) + " over the given kernel; the reference reaches " +
              Times(r.reference_speedup) + ". Full points from " + Times(r.target_speedup) +
              ", none at " + Times(speed.zero_at) + " or below.";
  return r;
}

}  // namespace

const char* ToString(GradeStatus status) {
  for (const StatusName& s : kStatusNames)
    if (s.status == status) return s.name;
  return "failed";
}

std::optional<GradeStatus> ParseGradeStatus(const std::string& text) {
  for (const StatusName& s : kStatusNames)
    if (text == s.name) return s.status;
  return std::nullopt;
}

double RoundPoints(double x) { return std::round(x * 100.0) / 100.0; }

double SpeedPoints(const Speed& speed, double s, double s_ref) {
  const double points = static_cast<double>(speed.points);
  const double width = speed.full_at * s_ref - speed.zero_at;
  if (!(width > 0)) return s > speed.zero_at ? points : 0.0;
  const double fraction = std::clamp((s - speed.zero_at) / width, 0.0, 1.0);
  return RoundPoints(points * fraction);
}

Result<Scores> ScoreSubmission(const LabSpec& spec, const std::vector<ExerciseOutcome>& outcomes,
                               const SpeedMeasurement& speed) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!spec.FindExercise(outcomes[i].id))
      return MakeError("scoring: lab " + spec.id + " has no exercise \"" + outcomes[i].id + "\"");
    for (size_t j = 0; j < i; ++j)
      if (outcomes[j].id == outcomes[i].id)
        return MakeError("scoring: two outcomes for exercise \"" + outcomes[i].id + "\"");
  }
  Scores scores;
  for (const Exercise& ex : spec.exercises) {
    if (ex.given) continue;
    auto it = std::find_if(outcomes.begin(), outcomes.end(),
                           [&](const ExerciseOutcome& o) { return o.id == ex.id; });
    scores.exercises.push_back(ScoreExercise(ex, it == outcomes.end() ? nullptr : &*it));
    scores.total += scores.exercises.back().score;
    scores.max_total += scores.exercises.back().max_score;
  }
  if (spec.speed) {
    auto timed =
        std::find_if(scores.exercises.begin(), scores.exercises.end(),
                     [&](const ExerciseResult& r) { return r.id == spec.speed->exercise; });
    scores.speed =
        ScoreSpeed(*spec.speed, timed == scores.exercises.end() ? nullptr : &*timed, speed);
    scores.total += scores.speed->score;
    scores.max_total += scores.speed->max_score;
    scores.speed_not_measured = scores.speed->status == GradeStatus::kNotMeasured;
  }
  scores.total = RoundPoints(scores.total);
  scores.max_total = RoundPoints(scores.max_total);
  return scores;
}

}  // namespace labkit
