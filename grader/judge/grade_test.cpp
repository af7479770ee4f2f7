#include "grade.h"

#include <gtest/gtest.h>

#include "exercise_grader.h"

namespace labkit {
namespace {

TEST(SubmissionFolder, DropsATrailingSlash) {
  EXPECT_EQ(SubmissionFolder("/class/ana/"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/class/ana//"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/class/./ana"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/"), "/");
}

// Before, `--src ana/` gave the submission an empty name in every report.
TEST(SubmissionFolder, NamesTheFolderWithOrWithoutTrailingSlash) {
  EXPECT_EQ(SubmissionNameOf("/class/ana/"), "ana");
  EXPECT_EQ(SubmissionNameOf("/class/ana"), "ana");
  EXPECT_EQ(SubmissionNameOf("ana/"), "ana");
}

ExerciseVerdict Decided(GradeStatus status, const std::string& cause, Flavour flavour,
                        std::vector<Flavour> builds_run) {
  ExerciseVerdict v;
  v.id = "tiled";
  v.status = status;
  v.cause = cause;
  v.message = status == GradeStatus::kPassed ? "" : "what went wrong";
  v.flavour = flavour;
  v.builds_run = std::move(builds_run);
  return v;
}

// Scoring sees each build as it went: a failure in the build without fused multiply-add is not
// copied onto the default build, and a build that never ran is not reported as failed.
TEST(ToOutcome, EachBuildAsItWent) {
  const std::vector<Flavour> both = {Flavour::kDefault, Flavour::kNoFma};
  ExerciseOutcome o = ToOutcome(Decided(GradeStatus::kPassed, "", Flavour::kDefault, both));
  ASSERT_EQ(o.flavours.size(), 2u);
  EXPECT_EQ(o.flavours[0].status, GradeStatus::kPassed);
  EXPECT_EQ(o.flavours[1].status, GradeStatus::kPassed);

  o = ToOutcome(Decided(GradeStatus::kFailed, "wrong_result", Flavour::kNoFma, both));
  ASSERT_EQ(o.flavours.size(), 2u);
  EXPECT_EQ(o.flavours[0].flavour, "default");
  EXPECT_EQ(o.flavours[0].status, GradeStatus::kPassed);
  EXPECT_EQ(o.flavours[1].flavour, "nofma");
  EXPECT_EQ(o.flavours[1].status, GradeStatus::kFailed);
  EXPECT_EQ(o.flavours[1].cause, "wrong_result");

  o = ToOutcome(Decided(GradeStatus::kCrashed, "crashed", Flavour::kDefault, {Flavour::kDefault}));
  ASSERT_EQ(o.flavours.size(), 1u) << "the nofma build never ran";
  EXPECT_EQ(o.flavours[0].status, GradeStatus::kCrashed);

  // A race found after both builds passed their cases: on the default build, which it ran on.
  o = ToOutcome(Decided(GradeStatus::kFailed, "thread_order", Flavour::kDefault, both));
  ASSERT_EQ(o.flavours.size(), 2u);
  EXPECT_EQ(o.flavours[0].cause, "thread_order");
  EXPECT_EQ(o.flavours[1].status, GradeStatus::kPassed);
}

TEST(ToOutcome, ATechniqueFailureIsKeptApartFromRightValues) {
  const ExerciseOutcome o = ToOutcome(Decided(GradeStatus::kFailed, kTechniqueCause,
                                              Flavour::kDefault,
                                              {Flavour::kDefault, Flavour::kNoFma}));
  ASSERT_EQ(o.flavours.size(), 2u);
  EXPECT_EQ(o.flavours[0].status, GradeStatus::kPassed);
  EXPECT_EQ(o.flavours[1].status, GradeStatus::kPassed);
  EXPECT_EQ(o.technique_failure, "what went wrong");
}

// A query exercise or the kit's own fault: no builds listed, the default build alone.
TEST(ToOutcome, NoBuildsListedIsTheDefaultBuildAlone) {
  const ExerciseOutcome o =
      ToOutcome(Decided(GradeStatus::kGraderError, "toolchain", Flavour::kDefault, {}));
  ASSERT_EQ(o.flavours.size(), 1u);
  EXPECT_EQ(o.flavours[0].status, GradeStatus::kGraderError);
  EXPECT_EQ(o.flavours[0].cause, "toolchain");
}

}  // namespace
}  // namespace labkit
