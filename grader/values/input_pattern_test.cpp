#include "input_pattern.h"

#include <gtest/gtest.h>

#include "diagnosis.h"
#include "product_case_test_util.h"

namespace labkit {
namespace {

// The product of A with B read column-major, in float, as a kernel would compute it.
std::vector<float> TimesBTransposed(const ProductCase& c) {
  const Shape& s = c.shape;
  std::vector<float> out(s.m * s.k);
  for (int64_t row = 0; row < s.m; ++row)
    for (int64_t col = 0; col < s.k; ++col) {
      float sum = 0;
      for (int64_t i = 0; i < s.n; ++i) sum += c.in.a[row * s.n + i] * c.in.b[col * s.n + i];
      out[row * s.k + col] = sum;
    }
  return out;
}

// Column-major thinking about B: before, "841 of 841 elements of C are wrong" and no cause.
TEST(InputPattern, BReadColumnMajor) {
  const ProductCase c({29, 29, 29}, ValueKind::kFullMantissa);
  const CheckResult check = c.Check(TimesBTransposed(c));
  EXPECT_EQ(TransposedInputCause(check, c.in.a, c.in.b),
            "C came out as A times B transposed: B was read column-major, as B[col * n + i]. B is "
            "row-major, n x k: element (i, col) is B[i * k + col].");
  const Diagnosis d = Diagnose(check, c.in.a, c.in.b, 16);
  EXPECT_EQ(d.cause, TransposedInputCause(check, c.in.a, c.in.b));
  EXPECT_TRUE(d.definite);
}

TEST(InputPattern, AReadColumnMajor) {
  const ProductCase c({12, 12, 5}, ValueKind::kFullMantissa);
  const Shape& s = c.shape;
  std::vector<float> got(s.m * s.k);
  for (int64_t row = 0; row < s.m; ++row)
    for (int64_t col = 0; col < s.k; ++col) {
      float sum = 0;
      for (int64_t i = 0; i < s.n; ++i) sum += c.in.a[i * s.m + row] * c.in.b[i * s.k + col];
      got[row * s.k + col] = sum;
    }
  EXPECT_EQ(TransposedInputCause(c.Check(got), c.in.a, c.in.b)
                .rfind("C came out as A transposed times B: A was read column-major", 0),
            0u);
}

TEST(InputPattern, NotWhenRightOrOtherwiseWrongOrNotSquare) {
  const ProductCase c({29, 29, 29}, ValueKind::kFullMantissa);
  EXPECT_EQ(TransposedInputCause(c.Check(c.right), c.in.a, c.in.b), "");
  std::vector<float> got = TimesBTransposed(c);
  got[5] += 1.0f;  // one element that is neither product
  EXPECT_EQ(TransposedInputCause(c.Check(got), c.in.a, c.in.b), "");
  const ProductCase tall({20, 7, 9}, ValueKind::kFullMantissa);
  std::vector<float> wrong = tall.right;
  wrong[0] += 1.0f;
  EXPECT_EQ(TransposedInputCause(tall.Check(wrong), tall.in.a, tall.in.b), "");
  EXPECT_EQ(TransposedInputCause(c.Check(got), {}, {}), "");  // inputs not given
}

}  // namespace
}  // namespace labkit
