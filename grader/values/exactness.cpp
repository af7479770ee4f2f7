// Compiled with -ffp-contract=off (see CMakeLists.txt): every * and + here rounds to float.
#include "exactness.h"

#include <cmath>
#include <limits>

namespace labkit {

float SequentialDot(const float* a_row, const float* b, int64_t n, int64_t k, int64_t col) {
  float acc = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float product = a_row[i] * b[i * k + col];  // rounded to float before the add
    acc = acc + product;
  }
  return acc;
}

std::vector<float> SequentialProduct(const Shape& s, const std::vector<float>& a,
                                     const std::vector<float>& b) {
  std::vector<float> c(static_cast<size_t>(s.m * s.k));
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t col = 0; col < s.k; ++col)
      c[r * s.k + col] = SequentialDot(&a[r * s.n], b.data(), s.n, s.k, col);
  return c;
}

bool IsFusedSequentialProduct(const Shape& s, const std::vector<float>& a,
                              const std::vector<float>& b, const std::vector<float>& c) {
  const auto count = [](int64_t x, int64_t y) { return static_cast<size_t>(x * y); };
  if (a.size() != count(s.m, s.n) || b.size() != count(s.n, s.k) || c.size() != count(s.m, s.k))
    return false;
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t col = 0; col < s.k; ++col) {
      float acc = 0.0f;
      for (int64_t i = 0; i < s.n; ++i) acc = std::fmaf(a[r * s.n + i], b[i * s.k + col], acc);
      if (!BitwiseEqual(acc, c[r * s.k + col])) return false;
    }
  return true;
}

bool BitwiseEqual(float x, float y) { return FloatBits(x) == FloatBits(y); }

namespace {
// Maps floats onto integers in order: +0 and -0 both to 0, negatives below.
int64_t OrderedKey(float x) {
  const uint32_t bits = FloatBits(x);
  const int64_t magnitude = bits & 0x7FFFFFFFu;
  return (bits & 0x80000000u) ? -magnitude : magnitude;
}
}  // namespace

uint64_t UlpDistance(float x, float y) {
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<uint64_t>::max();
  const int64_t d = OrderedKey(x) - OrderedKey(y);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

Result<CheckResult> CheckExact(const Shape& s, const std::vector<float>& a,
                               const std::vector<float>& b, const std::vector<float>& c,
                               const CheckOptions& options) {
  if (Status st = ValidateProductArguments(s, a, b, c, options); !st.ok())
    return MakeError(st.error());
  CheckResult result;
  result.Reset(s, ToleranceModel::kExact, options);
  for (int64_t r : RowsToCheck(s, options)) {
    for (int64_t col = 0; col < s.k; ++col) {
      const float expected = SequentialDot(&a[r * s.n], b.data(), s.n, s.k, col);
      const float got = c[r * s.k + col];
      result.Record(r, col, expected, got, 0.0, BitwiseEqual(got, expected), options,
                    UlpDistance(got, expected));
    }
  }
  return result;
}

}  // namespace labkit
