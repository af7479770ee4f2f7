#include "tolerance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exactness.h"
#include "inputs.h"

namespace labkit {
namespace {

// C = A * B in float, summing the inner index in the order `order` gives (and with FMA or not).
std::vector<float> ProductInOrder(const Shape& s, const std::vector<float>& a,
                                  const std::vector<float>& b, bool reverse, bool fma) {
  std::vector<float> c(s.m * s.k);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t col = 0; col < s.k; ++col) {
      float acc = 0;
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t i = reverse ? s.n - 1 - j : j;
        acc = fma ? std::fmaf(a[r * s.n + i], b[i * s.k + col], acc)
                  : acc + a[r * s.n + i] * b[i * s.k + col];
      }
      c[r * s.k + col] = acc;
    }
  return c;
}

TEST(Tolerance, Gamma) {
  EXPECT_DOUBLE_EQ(Gamma(1), 0x1p-24 / (1 - 0x1p-24));
  EXPECT_DOUBLE_EQ(Gamma(1000), 1000 * 0x1p-24 / (1 - 1000 * 0x1p-24));
  EXPECT_TRUE(std::isinf(Gamma(int64_t{1} << 24)));
  EXPECT_EQ(ForwardErrorBound(300, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(ForwardErrorBound(2, 4.0), (Gamma(2) + Gamma(2, 0x1p-53)) * 4.0);
}

class ToleranceShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(ToleranceShapes, EveryFloatEvaluationOrderPasses) {
  const Shape s = GetParam();
  const ProductInputs in = GenerateProductInputs(7, "c0", s, ValueKind::kFullMantissa);
  for (bool reverse : {false, true})
    for (bool fma : {false, true}) {
      Result<CheckResult> r =
          CheckForwardError(s, in.a, in.b, ProductInOrder(s, in.a, in.b, reverse, fma));
      ASSERT_TRUE(r.ok()) << r.error();
      EXPECT_TRUE(r->passed()) << "reverse=" << reverse << " fma=" << fma << " first mismatch at "
                               << r->first[0].row << "," << r->first[0].col;
      EXPECT_EQ(r->checked, s.m * s.k);
    }
}

TEST_P(ToleranceShapes, DroppingOneProductFails) {
  const Shape s = GetParam();
  const ProductInputs in = GenerateProductInputs(7, "c1", s, ValueKind::kFullMantissa);
  std::vector<float> c = ProductInOrder(s, in.a, in.b, false, false);
  // Leave out the last product of element (0, 0): what a loop bound off by one does.
  c[0] -= in.a[s.n - 1] * in.b[(s.n - 1) * s.k];
  Result<CheckResult> r = CheckForwardError(s, in.a, in.b, c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mismatches, 1);
  EXPECT_EQ(r->state(0, 0), ElementState::kWrong);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ToleranceShapes,
                         ::testing::Values(Shape{1, 1, 1}, Shape{29, 29, 29}, Shape{128, 13, 128},
                                           Shape{16, 700, 16}, Shape{33, 17, 49}));

TEST(Tolerance, OneUlpOffOnASingleProductFails) {
  // 1 x 1: c = a*b, the bound is about u*|ab|, one ulp of 1.0 is 2u.
  Result<CheckResult> r =
      CheckForwardError({1, 1, 1}, {1.0f}, {1.0f}, {std::nextafterf(1.0f, 2.0f)});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->first.size(), 1u);
  const Mismatch& m = r->first[0];
  EXPECT_EQ(m.row, 0);
  EXPECT_EQ(m.col, 0);
  EXPECT_EQ(m.expected, 1.0);
  EXPECT_EQ(m.got, 1.0f + 0x1p-23f);
  EXPECT_DOUBLE_EQ(m.bound, Gamma(1) + Gamma(1, 0x1p-53));
}

TEST(Tolerance, ZeroSumAllowsOnlyZero) {
  const std::vector<float> a{0.0f, 0.0f}, b{5.0f, -3.0f};
  EXPECT_TRUE(CheckForwardError({1, 2, 1}, a, b, {0.0f})->passed());
  EXPECT_TRUE(CheckForwardError({1, 2, 1}, a, b, {-0.0f})->passed());
  Result<CheckResult> r = CheckForwardError({1, 2, 1}, a, b, {1e-30f});
  EXPECT_EQ(r->mismatches, 1);
  EXPECT_EQ(r->first[0].bound, 0.0);
}

TEST(Tolerance, NanInfAndPoisonNeverPass) {
  const float poison = FloatFromBits(kPoisonBits);
  const float inf = std::numeric_limits<float>::infinity();
  Result<CheckResult> r = CheckForwardError({1, 1, 4}, {1.0f}, {1.0f, 2.0f, 3.0f, 4.0f},
                                            {1.0f, std::nanf(""), inf, poison});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mismatches, 3);
  EXPECT_EQ(r->non_finite, 2);
  EXPECT_EQ(r->poison, 1);
  EXPECT_EQ(r->state(0, 1), ElementState::kNonFinite);
  EXPECT_EQ(r->state(0, 2), ElementState::kNonFinite);
  EXPECT_TRUE(r->first[2].poison());
  EXPECT_EQ(r->first[2].expected, 4.0);
}

TEST(Tolerance, KeepsTheFirstMismatchesInRowMajorOrder) {
  const Shape s{4, 3, 5};
  const ProductInputs in = GenerateProductInputs(1, "c", s, ValueKind::kSmallIntegers);
  std::vector<float> c = SequentialProduct(s, in.a, in.b);
  for (int64_t i : {19, 3, 7, 11}) c[i] += 1.0f;
  CheckOptions opt;
  opt.keep_first = 3;
  Result<CheckResult> r = CheckForwardError(s, in.a, in.b, c, opt);
  EXPECT_EQ(r->mismatches, 4);
  ASSERT_EQ(r->first.size(), 3u);
  EXPECT_EQ(r->first[0].row * 5 + r->first[0].col, 3);
  EXPECT_EQ(r->first[1].row * 5 + r->first[1].col, 7);
  EXPECT_EQ(r->first[2].row, 2);
  EXPECT_EQ(r->first[2].col, 1);
}

TEST(Tolerance, ChecksOnlyTheRowsAsked) {
  const Shape s{4, 3, 5};
  const ProductInputs in = GenerateProductInputs(1, "c", s, ValueKind::kSmallIntegers);
  std::vector<float> c = SequentialProduct(s, in.a, in.b);
  c[0] += 1.0f;  // row 0, not checked
  CheckOptions opt;
  opt.rows = {1, 3};
  opt.keep_reference = false;
  Result<CheckResult> r = CheckForwardError(s, in.a, in.b, c, opt);
  EXPECT_TRUE(r->passed());
  EXPECT_EQ(r->checked, 10);
  EXPECT_EQ(r->state(0, 0), ElementState::kUnchecked);
  EXPECT_TRUE(r->reference.empty());
}

TEST(Tolerance, BadArgumentsAreErrors) {
  EXPECT_EQ(CheckForwardError({2, 2, 2}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3}).error(),
            "C holds 3 floats, expected 4 (2x2)");
}

TEST(Tolerance, CheckProductPicksTheModel) {
  // 1*1 + 2^-24 * 1: the forward-error model accepts 1 + 2^-23, the exact model wants 1.
  const std::vector<float> a{1.0f, 0x1p-24f}, b{1.0f, 1.0f}, c{1.0f + 0x1p-23f};
  EXPECT_TRUE(CheckProduct(ToleranceModel::kForwardError, {1, 2, 1}, a, b, c)->passed());
  Result<CheckResult> exact = CheckProduct(ToleranceModel::kExact, {1, 2, 1}, a, b, c);
  EXPECT_FALSE(exact->passed());
  EXPECT_EQ(exact->model, ToleranceModel::kExact);
}

}  // namespace
}  // namespace labkit
