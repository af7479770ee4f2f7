#include "scoring.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// Lab 03 as committed: tiled 30 points, tiled_any 40, speed 30 on tiled_any (full_at 0.8,
// zero_at 1.0); `rows` is given.
const LabSpec& Lab03() {
  static const LabSpec spec = *LoadLabSpec(LABKIT_SOURCE_DIR "/labs/03_tiled_matmul");
  return spec;
}

ExerciseOutcome Passed(const std::string& id) {
  return {id, {{"default", GradeStatus::kPassed, ""}, {"nofma", GradeStatus::kPassed, ""}}, "", {}};
}

SpeedMeasurement Timed(double student_ms, double baseline_ms, double reference_ms,
                       double reference_baseline_ms) {
  SpeedMeasurement m;
  m.kind = SpeedMeasurement::Kind::kMeasured;
  m.student_ms = student_ms;
  m.baseline_ms = baseline_ms;
  m.reference_ms = reference_ms;
  m.reference_baseline_ms = reference_baseline_ms;
  return m;
}

Scores Score(const std::vector<ExerciseOutcome>& outcomes, const SpeedMeasurement& m) {
  Result<Scores> r = ScoreSubmission(Lab03(), outcomes, m);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : Scores{};
}

TEST(Scoring, StatusNames) {
  for (GradeStatus s : {GradeStatus::kPassed, GradeStatus::kFailed, GradeStatus::kNotMeasured,
                        GradeStatus::kCompileError, GradeStatus::kCrashed, GradeStatus::kTimeout,
                        GradeStatus::kGraderError})
    EXPECT_EQ(ParseGradeStatus(ToString(s)), s);
  EXPECT_STREQ(ToString(GradeStatus::kNotMeasured), "not_measured");
  EXPECT_FALSE(ParseGradeStatus("PASS").has_value());
}

TEST(Scoring, FullMarks) {
  // s = 2 / 0.5 = 4, s_ref = 2 / 0.4 = 5, target 0.8 * 5 = 4: full speed points.
  const Scores s = Score({Passed("tiled"), Passed("tiled_any")}, Timed(0.5, 2.0, 0.4, 2.0));
  ASSERT_EQ(s.exercises.size(), 2u);  // `rows` is given: not scored
  EXPECT_EQ(s.exercises[0].id, "tiled");
  EXPECT_EQ(s.exercises[0].title, "Shared-memory tiles, sizes that are multiples of TILE");
  EXPECT_EQ(s.exercises[0].score, 30);
  EXPECT_EQ(s.exercises[1].score, 40);
  ASSERT_TRUE(s.speed.has_value());
  EXPECT_EQ(s.speed->status, GradeStatus::kPassed);
  EXPECT_EQ(s.speed->score, 30);
  EXPECT_DOUBLE_EQ(s.speed->speedup, 4.0);
  EXPECT_DOUBLE_EQ(s.speed->reference_speedup, 5.0);
  EXPECT_DOUBLE_EQ(s.speed->target_speedup, 4.0);
  EXPECT_EQ(s.speed->message,
            "Speedup 4.00x over the given kernel; the reference reaches 5.00x. Full points from "
            "4.00x, none at 1.00x or below.");
  EXPECT_EQ(s.total, 100);
  EXPECT_EQ(s.max_total, 100);
  EXPECT_FALSE(s.speed_not_measured);
}

TEST(Scoring, SpeedIsLinearBetweenZeroAtAndTarget) {
  // s = 2, s_ref = 3 / 0.5 = 6, target 4.8: 30 * (2 - 1) / (4.8 - 1) = 7.894... -> 7.89
  const Scores s = Score({Passed("tiled"), Passed("tiled_any")}, Timed(1.0, 2.0, 0.5, 3.0));
  EXPECT_EQ(s.speed->score, 7.89);
  EXPECT_EQ(s.total, 77.89);
  // s = 2.5, s_ref = 5: 30 * 1.5 / 3 = 15
  EXPECT_EQ(Score({Passed("tiled"), Passed("tiled_any")}, Timed(0.8, 2.0, 0.4, 2.0)).speed->score,
            15);
}

TEST(Scoring, SpeedIsClamped) {
  // Faster than the target: still 30.
  EXPECT_EQ(Score({Passed("tiled_any")}, Timed(0.1, 2.0, 0.4, 2.0)).speed->score, 30);
  // Slower than the given kernel: 0, and failed.
  const Scores slow = Score({Passed("tiled_any")}, Timed(3.0, 2.0, 0.4, 2.0));
  EXPECT_EQ(slow.speed->score, 0);
  EXPECT_EQ(slow.speed->status, GradeStatus::kFailed);
}

TEST(Scoring, SpeedPointsWithoutRampWidth) {
  Speed speed = *Lab03().speed;
  // s_ref = 1.2: target 0.96 is below zero_at 1.0.
  EXPECT_EQ(SpeedPoints(speed, 1.1, 1.2), 30);
  EXPECT_EQ(SpeedPoints(speed, 0.9, 1.2), 0);
  EXPECT_EQ(SpeedPoints(speed, 1.0, 1.2), 0);
}

TEST(Scoring, RoundPoints) {
  EXPECT_EQ(RoundPoints(7.894736842), 7.89);
  EXPECT_EQ(RoundPoints(0.125), 0.13);
  EXPECT_EQ(RoundPoints(-0.0), 0);
}

TEST(Scoring, BothBuildsMustPass) {
  ExerciseOutcome any = Passed("tiled_any");
  any.flavours[1] = {"nofma", GradeStatus::kFailed, "not bit-exact without FMA"};
  const Scores s = Score({Passed("tiled"), any}, Timed(0.5, 2.0, 0.4, 2.0));
  EXPECT_EQ(s.exercises[1].status, GradeStatus::kFailed);
  EXPECT_EQ(s.exercises[1].score, 0);
  EXPECT_EQ(s.exercises[1].message, "not bit-exact without FMA");
  // Speed counts only when the timed exercise passed.
  EXPECT_EQ(s.speed->status, GradeStatus::kFailed);
  EXPECT_EQ(s.speed->score, 0);
  EXPECT_EQ(s.speed->message, "Speed counts only once exercise tiled_any passes.");
  EXPECT_EQ(s.total, 30);
}

TEST(Scoring, WorstFlavourSpeaks) {
  ExerciseOutcome o{"tiled",
                    {{"default", GradeStatus::kFailed, "wrong"},
                     {"nofma", GradeStatus::kCompileError, "matmul.cu:3: error"}},
                    "",
                    {}};
  const Scores s = Score({o, Passed("tiled_any")}, {});
  EXPECT_EQ(s.exercises[0].status, GradeStatus::kCompileError);
  EXPECT_EQ(s.exercises[0].message, "matmul.cu:3: error");
}

TEST(Scoring, TechniqueFailureScoresZeroAndKeepsTheReason) {
  ExerciseOutcome o = Passed("tiled");
  o.technique_failure = "matmul_tiled_kernel declares 0 bytes of __shared__ memory";
  const Scores s = Score({o, Passed("tiled_any")}, Timed(0.5, 2.0, 0.4, 2.0));
  EXPECT_EQ(s.exercises[0].status, GradeStatus::kFailed);
  EXPECT_EQ(s.exercises[0].score, 0);
  EXPECT_EQ(s.exercises[0].message,
            "The results are right, but matmul_tiled_kernel declares 0 bytes of __shared__ "
            "memory.");
  EXPECT_EQ(s.total, 70);
}

TEST(Scoring, SpeedNotMeasured) {
  SpeedMeasurement m;
  m.message = "Speed is measured on a GPU only (this run used the CPU backend).";
  const Scores s = Score({Passed("tiled"), Passed("tiled_any")}, m);
  EXPECT_EQ(s.speed->status, GradeStatus::kNotMeasured);
  EXPECT_EQ(s.speed->score, 0);
  EXPECT_EQ(s.speed->max_score, 30);
  EXPECT_EQ(s.speed->message, m.message);
  EXPECT_TRUE(s.speed_not_measured);
  EXPECT_EQ(s.total, 70);
  EXPECT_EQ(s.max_total, 100);
}

// The reference solution failed to build or to time: the kit's fault, never the student's zero.
TEST(Scoring, ReferenceThatCannotBeTimedIsAGraderError) {
  SpeedMeasurement m;
  m.kind = SpeedMeasurement::Kind::kGraderError;
  m.message = "the kit's reference solution did not build: ...";
  m.cause = "reference_build";
  const Scores s = Score({Passed("tiled"), Passed("tiled_any")}, m);
  EXPECT_EQ(s.speed->status, GradeStatus::kGraderError);
  EXPECT_EQ(s.speed->message, m.message);
  EXPECT_EQ(s.speed->cause, "reference_build");
  EXPECT_FALSE(s.speed_not_measured);
}

TEST(Scoring, CausesComeFromTheOutcome) {
  ExerciseOutcome wrong = Passed("tiled");
  wrong.flavours[1] = {"nofma", GradeStatus::kFailed, "wrong result in ...", "wrong_result"};
  ExerciseOutcome technique = Passed("tiled_any");
  technique.technique_failure = "no shared memory";
  const Scores s = Score({wrong, technique}, Timed(2, 1, 1, 1));
  EXPECT_EQ(s.exercises[0].cause, "wrong_result");
  EXPECT_EQ(s.exercises[1].cause, "technique");
  EXPECT_EQ(s.speed->cause, "timed_exercise_failed");
}

TEST(Scoring, MissingOutcomeIsTheGradersFault) {
  const Scores s = Score({Passed("tiled_any")}, {});
  EXPECT_EQ(s.exercises[0].status, GradeStatus::kGraderError);
  EXPECT_EQ(s.exercises[0].score, 0);
}

TEST(Scoring, BadOutcomesAreErrors) {
  EXPECT_EQ(ScoreSubmission(Lab03(), {Passed("tiles")}, {}).error(),
            "scoring: lab 03_tiled_matmul has no exercise \"tiles\"");
  EXPECT_EQ(ScoreSubmission(Lab03(), {Passed("tiled"), Passed("tiled")}, {}).error(),
            "scoring: two outcomes for exercise \"tiled\"");
}

TEST(Scoring, Deterministic) {
  const std::vector<ExerciseOutcome> o{Passed("tiled"), Passed("tiled_any")};
  const SpeedMeasurement m = Timed(0.731, 1.913, 0.402, 1.887);
  const Scores a = Score(o, m), b = Score(o, m);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.speed->score, b.speed->score);
  // s = 2.6170..., s_ref = 4.6940..., 30 * 1.6170 / 2.7552 = 17.606... -> 17.61
  EXPECT_EQ(a.speed->score, 17.61);
}

}  // namespace
}  // namespace labkit
