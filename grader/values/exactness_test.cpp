#include "exactness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "inputs.h"

namespace labkit {
namespace {

TEST(Exactness, SumsInAscendingOrder) {
  // 1 + 2^-24 rounds back to 1 (ties to even), twice; the other order would give 1 + 2^-23.
  const float a[] = {1.0f, 0x1p-24f, 0x1p-24f};
  const float b[] = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(SequentialDot(a, b, 3, 1, 0), 1.0f);
  const float reversed[] = {0x1p-24f, 0x1p-24f, 1.0f};
  EXPECT_EQ(SequentialDot(reversed, b, 3, 1, 0), 1.0f + 0x1p-23f);
}

TEST(Exactness, RoundsEachProductBeforeTheAdd) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11, which the first term cancels exactly.
  // A fused multiply-add would keep the 2^-24.
  const float a[] = {-1.0f, 1.0f + 0x1p-12f};
  const float b[] = {1.0f + 0x1p-11f, 1.0f + 0x1p-12f};
  EXPECT_EQ(SequentialDot(a, b, 2, 1, 0), 0.0f);
  EXPECT_EQ(std::fmaf(a[1], b[1], a[0] * b[0]), 0x1p-24f);
}

TEST(Exactness, SequentialProductUsesRowMajorLayout) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
  EXPECT_EQ(SequentialProduct({2, 2, 2}, {1, 2, 3, 4}, {5, 6, 7, 8}),
            (std::vector<float>{19, 22, 43, 50}));
  // 1 x 3 times 3 x 2
  EXPECT_EQ(SequentialProduct({1, 3, 2}, {1, 2, 3}, {1, 0, 0, 1, 1, 1}),
            (std::vector<float>{4, 5}));
}

TEST(Exactness, BitwiseEqual) {
  EXPECT_TRUE(BitwiseEqual(1.5f, 1.5f));
  EXPECT_FALSE(BitwiseEqual(0.0f, -0.0f));
  EXPECT_TRUE(BitwiseEqual(FloatFromBits(0x7FC00001u), FloatFromBits(0x7FC00001u)));
  EXPECT_FALSE(BitwiseEqual(FloatFromBits(0x7FC00001u), FloatFromBits(0x7FC00002u)));
}

TEST(Exactness, UlpDistance) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(UlpDistance(1.0f, 1.0f), 0u);
  EXPECT_EQ(UlpDistance(1.0f, std::nextafterf(1.0f, 2.0f)), 1u);
  EXPECT_EQ(UlpDistance(std::nextafterf(1.0f, 2.0f), 1.0f), 1u);
  EXPECT_EQ(UlpDistance(1.0f, std::nextafterf(1.0f, 0.0f)), 1u);
  EXPECT_EQ(UlpDistance(0.0f, -0.0f), 0u);
  EXPECT_EQ(UlpDistance(-tiny, tiny), 2u);
  EXPECT_EQ(UlpDistance(-0.0f, tiny), 1u);
  EXPECT_EQ(UlpDistance(-1.0f, 1.0f), 2u * 0x3F800000u);
  EXPECT_EQ(UlpDistance(std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity()),
            1u);
  EXPECT_EQ(UlpDistance(std::nanf(""), 1.0f), std::numeric_limits<uint64_t>::max());
}

TEST(Exactness, SmallIntegerProductsAreExactInAnyOrder) {
  const Shape s{33, 700, 17};
  const ProductInputs in = GenerateProductInputs(3, "c0", s, ValueKind::kSmallIntegers);
  std::vector<float> reversed(s.m * s.k);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      float acc = 0;
      for (int64_t i = s.n - 1; i >= 0; --i) acc += in.a[r * s.n + i] * in.b[i * s.k + c];
      reversed[r * s.k + c] = acc;
    }
  Result<CheckResult> r = CheckExact(s, in.a, in.b, reversed);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->passed());
}

TEST(Exactness, TiledOrderWithZeroFillMatchesBitForBit) {
  // What a correct tiled kernel computes: tiles of 16 in order, partial tiles padded with zeros.
  const Shape s{5, 29, 3};
  const ProductInputs in = GenerateProductInputs(3, "c1", s, ValueKind::kFullMantissa);
  std::vector<float> tiled(s.m * s.k);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      float acc = 0;
      for (int64_t t = 0; t < (s.n + 15) / 16; ++t)
        for (int64_t j = 0; j < 16; ++j) {
          const int64_t i = t * 16 + j;
          const float av = i < s.n ? in.a[r * s.n + i] : 0.0f;
          const float bv = i < s.n ? in.b[i * s.k + c] : 0.0f;
          const float p = av * bv;
          acc = acc + p;
        }
      tiled[r * s.k + c] = acc;
    }
  EXPECT_TRUE(CheckExact(s, in.a, in.b, tiled)->passed());
}

TEST(Exactness, OneUlpIsAMismatchWithItsDistance) {
  const Shape s{3, 4, 3};
  const ProductInputs in = GenerateProductInputs(5, "c2", s, ValueKind::kFullMantissa);
  std::vector<float> c = SequentialProduct(s, in.a, in.b);
  const float expected = c[4];
  c[4] = std::nextafterf(c[4], 10.0f);
  Result<CheckResult> r = CheckExact(s, in.a, in.b, c);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->mismatches, 1);
  const Mismatch& m = r->first[0];
  EXPECT_EQ(m.row, 1);
  EXPECT_EQ(m.col, 1);
  EXPECT_EQ(m.expected, expected);
  EXPECT_EQ(m.ulps, 1u);
  EXPECT_EQ(m.bound, 0.0);
}

// An explicit fmaf in the inner loop gives C that is exactly the fused sequential sum, which the
// -fmad=false build's model is not; the plain sequential sum is not taken for it.
TEST(Exactness, TellsTheFusedSequentialSum) {
  const Shape s{2, 300, 3};
  std::vector<float> a(s.m * s.n), b(s.n * s.k);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0f / static_cast<float>(i + 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 1.0f / static_cast<float>(2 * i + 7);
  std::vector<float> fused(s.m * s.k);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      float acc = 0.0f;
      for (int64_t i = 0; i < s.n; ++i) acc = std::fmaf(a[r * s.n + i], b[i * s.k + c], acc);
      fused[r * s.k + c] = acc;
    }
  const std::vector<float> plain = SequentialProduct(s, a, b);
  ASSERT_NE(plain, fused) << "inputs where fusing changes the bits";
  EXPECT_TRUE(IsFusedSequentialProduct(s, a, b, fused));
  EXPECT_FALSE(IsFusedSequentialProduct(s, a, b, plain));
  EXPECT_FALSE(IsFusedSequentialProduct(s, a, b, {}));
}

}  // namespace
}  // namespace labkit
