#include "inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "mismatch.h"

namespace labkit {
namespace {

TEST(Inputs, SameSeedAndCaseGiveSameBits) {
  const auto x = GenerateMatrix(42, "c3", "A", 17, 5, ValueKind::kFullMantissa);
  const auto y = GenerateMatrix(42, "c3", "A", 17, 5, ValueKind::kFullMantissa);
  EXPECT_EQ(EncodeFloats(x), EncodeFloats(y));
  EXPECT_NE(EncodeFloats(x),
            EncodeFloats(GenerateMatrix(43, "c3", "A", 17, 5, ValueKind::kFullMantissa)));
  EXPECT_NE(EncodeFloats(x),
            EncodeFloats(GenerateMatrix(42, "c4", "A", 17, 5, ValueKind::kFullMantissa)));
  EXPECT_NE(EncodeFloats(x),
            EncodeFloats(GenerateMatrix(42, "c3", "B", 17, 5, ValueKind::kFullMantissa)));
  EXPECT_NE(MatrixSeed(1, "c1", "0A"), MatrixSeed(1, "c10", "A"));
}

TEST(Inputs, GoldenValuesDoNotDrift) {
  // Pinned: a change here changes every student's test cases.
  const auto v = GenerateMatrix(1, "c0", "A", 1, 3, ValueKind::kFullMantissa);
  EXPECT_EQ(FloatBits(v[0]), 0x3E5D1E46u);
  EXPECT_EQ(FloatBits(v[1]), 0xBE9AB352u);
  EXPECT_EQ(FloatBits(v[2]), 0x3EF35C40u);
  const auto w = GenerateMatrix(1, "c0", "A", 1, 4, ValueKind::kSmallIntegers);
  EXPECT_EQ(w, (std::vector<float>{-2, 2, -4, 3}));
}

TEST(Inputs, FullMantissaValuesStayInRange) {
  const auto v = GenerateMatrix(9, "big", "A", 100, 100, ValueKind::kFullMantissa);
  int negative = 0, low_bit_set = 0;
  for (float x : v) {
    EXPECT_GE(std::fabs(x), 1.0f / 16);
    EXPECT_LT(std::fabs(x), 1.0f);
    negative += x < 0;
    low_bit_set += FloatBits(x) & 1;
  }
  EXPECT_GT(negative, 4500);
  EXPECT_LT(negative, 5500);
  EXPECT_GT(low_bit_set, 4500);  // the last significand bit is random too
}

TEST(Inputs, SmallIntegersStayInRange) {
  const auto v = GenerateMatrix(9, "ints", "B", 50, 50, ValueKind::kSmallIntegers);
  int seen[9] = {};
  for (float x : v) {
    ASSERT_EQ(x, std::floor(x));
    ASSERT_GE(x, -4.0f);
    ASSERT_LE(x, 4.0f);
    ++seen[static_cast<int>(x) + 4];
  }
  for (int count : seen) EXPECT_GT(count, 200);
}

TEST(Inputs, ProductInputsHaveTheShapesSizes) {
  const ProductInputs in = GenerateProductInputs(1, "c0", {3, 4, 5}, ValueKind::kSmallIntegers);
  EXPECT_EQ(in.a.size(), 12u);
  EXPECT_EQ(in.b.size(), 20u);
  EXPECT_EQ(in.a, GenerateMatrix(1, "c0", "A", 3, 4, ValueKind::kSmallIntegers));
}

TEST(Inputs, EncodingIsLittleEndian) {
  EXPECT_EQ(EncodeFloats({1.0f}), std::string("\x00\x00\x80\x3f", 4));
  EXPECT_EQ(DecodeFloats(std::string("\x00\x00\x80\xbf", 4)), std::vector<float>{-1.0f});
}

TEST(Inputs, FileRoundTrip) {
  const std::string path = ::testing::TempDir() + "/inputs_test_roundtrip.f32";
  const auto v = GenerateMatrix(5, "c0", "C", 29, 29, ValueKind::kFullMantissa);
  ASSERT_TRUE(WriteFloatFile(path, v).ok());
  Result<std::vector<float>> back = ReadFloatFile(path, 29, 29);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(EncodeFloats(*back), EncodeFloats(v));
  std::remove(path.c_str());
}

TEST(Inputs, ReadErrorsArePrecise) {
  const std::string path = ::testing::TempDir() + "/inputs_test_short.f32";
  ASSERT_TRUE(WriteFloatFile(path, std::vector<float>(840)).ok());
  EXPECT_EQ(ReadFloatFile(path, 29, 29).error(),
            path + ": expected 3364 bytes (29x29 floats), found 3360");
  // Larger than the matrix: not read past it (the file lies where the student's code writes).
  ASSERT_TRUE(WriteFloatFile(path, std::vector<float>(842)).ok());
  EXPECT_EQ(ReadFloatFile(path, 29, 29).error(), path + " is larger than 3364 bytes");
  std::remove(path.c_str());
  EXPECT_EQ(ReadFloatFile(path, 29, 29).error(), path + " does not exist");
  EXPECT_EQ(WriteFloatFile("/nonexistent-dir/x.f32", {1.0f}).error(),
            "/nonexistent-dir does not exist");
}

}  // namespace
}  // namespace labkit
