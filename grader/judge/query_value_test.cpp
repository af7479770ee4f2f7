// One query value against the kit's (CompareQueryValue): exact and relative tolerances, the
// digits a message needs, the usual cause of a known wrong answer; and the numbers and ids the
// query grader writes. GradeQueryExercise itself is query_grader_test.cpp's.
#include <gtest/gtest.h>

#include "query_grader.h"

namespace labkit {
namespace {

using nlohmann::json;

const QueryValueSpec kExact{"active_blocks", 0};
const QueryValueSpec kLoose{"occupancy", 1e-6};
const ParamSet kParams{{"block_side", 8}, {"dynamic_smem", 8192}};

json Value(json student, json expected, json hints = json::array()) {
  return {{"student", student}, {"expected", expected}, {"hints", hints}};
}

TEST(QueryGrader, EqualIntegersPass) {
  EXPECT_EQ(CompareQueryValue(kExact, kParams, Value(20, 20)), "");
  EXPECT_EQ(CompareQueryValue(kExact, {}, Value(32.0, 32)), "");
}

TEST(QueryGrader, ExactMeansExact) {
  EXPECT_EQ(CompareQueryValue(kExact, kParams, Value(21, 20)),
            "active_blocks with block_side=8, dynamic_smem=8192: expected 20, got 21.");
  EXPECT_EQ(CompareQueryValue({"width", 0}, {}, Value(22, 32)), "width: expected 32, got 22.");
}

TEST(QueryGrader, RelativeToleranceIsStated) {
  EXPECT_EQ(CompareQueryValue(kLoose, kParams, Value(0.6250000001, 0.625)), "");
  EXPECT_EQ(CompareQueryValue(kLoose, kParams, Value(0.0039, 0.5)),
            "occupancy with block_side=8, dynamic_smem=8192: expected 0.5, got 0.0039 (a "
            "relative difference of up to 1e-06 is accepted).");
}

// Two values that print alike at six digits are printed with as many as tell them apart.
TEST(QueryGrader, NumbersThatDifferAreShownDifferent) {
  EXPECT_EQ(CompareQueryValue(kLoose, {}, Value(0.83333331, 0.8333333333333334)), "");
  EXPECT_EQ(CompareQueryValue({"share", 0}, {}, Value(0.83333331, 0.8333333333333334)),
            "share: expected 0.833333333, got 0.83333331.");
}

TEST(QueryGrader, KnownWrongAnswerGivesTheUsualCause) {
  const json hints = json::array({{{"value", 32}, {"cause", "the shared-memory limit is missing"}},
                                  {{"value", 16}, {"cause", "another mistake"}}});
  EXPECT_EQ(CompareQueryValue(kExact, kParams, Value(32, 20, hints)),
            "active_blocks with block_side=8, dynamic_smem=8192: expected 20, got 32. Usual "
            "cause: the shared-memory limit is missing.");
  // A hint of a value with a tolerance matches within that tolerance (the student's arithmetic
  // need not round like the kit's).
  EXPECT_EQ(CompareQueryValue(
                kLoose, {},
                Value(0.0037878787879, 0.5,
                      json::array({{{"value", 0.00378787878787878}, {"cause", "per GPU"}}}))),
            "occupancy: expected 0.5, got 0.00378788 (a relative difference of up to 1e-06 is "
            "accepted). Usual cause: per GPU.");
  // An answer no hint describes gets no cause.
  EXPECT_EQ(CompareQueryValue(kExact, kParams, Value(7, 20, hints)),
            "active_blocks with block_side=8, dynamic_smem=8192: expected 20, got 7.");
}

TEST(QueryGrader, MissingAndNonNumbersNeverPass) {
  EXPECT_EQ(CompareQueryValue(kExact, {}, json()),
            "active_blocks: the harness reported no value (the lab's harness table does not fill "
            "it)");
  EXPECT_EQ(CompareQueryValue(kLoose, {}, Value(nullptr, 0.5)),
            "occupancy: expected 0.5, got NaN (a relative difference of up to 1e-06 is accepted).");
  EXPECT_EQ(CompareQueryValue(kExact, {}, Value("20", 20)), "active_blocks: expected 20, got NaN.");
}

TEST(QueryGrader, NumberText) {
  EXPECT_EQ(NumberText(20), "20");
  EXPECT_EQ(NumberText(-3), "-3");
  EXPECT_EQ(NumberText(0.625), "0.625");
  EXPECT_EQ(NumberText(1.0 / 3), "0.333333");
}

TEST(QueryGrader, HarnessExerciseIdCarriesTheParameters) {
  EXPECT_EQ(HarnessExerciseId("dynamic", {}), "dynamic");
  EXPECT_EQ(HarnessExerciseId("dynamic", kParams), "dynamic?block_side=8&dynamic_smem=8192");
}

}  // namespace
}  // namespace labkit
