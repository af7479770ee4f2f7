#include "mismatch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace labkit {
namespace {

TEST(Mismatch, PoisonIsTheAllOnesPattern) {
  EXPECT_TRUE(IsPoison(FloatFromBits(0xFFFFFFFFu)));
  EXPECT_FALSE(IsPoison(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(IsPoison(FloatFromBits(0x7FFFFFFFu)));  // the GPU's canonical NaN
  EXPECT_EQ(FloatBits(1.0f), 0x3F800000u);
}

TEST(Mismatch, RecordCountsAndKeepsTheFirst) {
  CheckOptions opt;
  opt.keep_first = 2;
  CheckResult r;
  r.Reset({2, 5, 3}, ToleranceModel::kForwardError, opt);
  EXPECT_EQ(r.state(1, 2), ElementState::kUnchecked);
  r.Record(0, 0, 1.0, 1.0f, 0.0, true, opt);
  r.Record(0, 1, 1.0, 2.0f, 0.5, false, opt);
  r.Record(0, 2, 1.0, FloatFromBits(kPoisonBits), 0.5, false, opt);
  r.Record(1, 0, 1.0, std::numeric_limits<float>::infinity(), 0.5, false, opt);
  r.Record(1, 1, 1.0, FloatFromBits(kPoisonBits), 0.5, true, opt);  // poison never passes
  EXPECT_EQ(r.checked, 5);
  EXPECT_EQ(r.mismatches, 4);
  EXPECT_EQ(r.poison, 2);
  EXPECT_EQ(r.non_finite, 1);
  ASSERT_EQ(r.first.size(), 2u);
  EXPECT_EQ(r.first[0].col, 1);
  EXPECT_EQ(r.first[0].state, ElementState::kWrong);
  EXPECT_TRUE(r.first[1].poison());
  EXPECT_EQ(r.state(1, 0), ElementState::kNonFinite);
  EXPECT_DOUBLE_EQ(r.reference[1], 1.0);
  EXPECT_DOUBLE_EQ(r.bound[1], 0.5);
  EXPECT_FALSE(r.passed());
}

TEST(Mismatch, ValidateNamesTheMatrixAndSize) {
  const Shape s{29, 29, 29};
  std::vector<float> ok(841, 1.0f), short_one(840, 1.0f);
  CheckOptions opt;
  EXPECT_TRUE(ValidateProductArguments(s, ok, ok, ok, opt).ok());
  EXPECT_EQ(ValidateProductArguments(s, short_one, ok, ok, opt).error(),
            "A holds 840 floats, expected 841 (29x29)");
  std::vector<float> nan = ok;
  nan[30] = std::nanf("");
  EXPECT_EQ(ValidateProductArguments(s, ok, nan, ok, opt).error(),
            "B is not finite at row 1, column 1: inputs must be finite for the error bound to "
            "mean anything");
  opt.rows = {29};
  EXPECT_EQ(ValidateProductArguments(s, ok, ok, ok, opt).error(),
            "row 29 to check is outside C's 29 rows");
}

TEST(Mismatch, RowsToCheckDefaultsToAll) {
  EXPECT_EQ(RowsToCheck({3, 1, 1}, {}), (std::vector<int64_t>{0, 1, 2}));
  CheckOptions opt;
  opt.rows = {2};
  EXPECT_EQ(RowsToCheck({3, 1, 1}, opt), (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace labkit
