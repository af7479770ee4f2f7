#include "input_pattern.h"

#include <cmath>
#include <functional>

#include "tolerance.h"

namespace labkit {

namespace {

// Whether every checked element of `check.got` lies within the forward-error bound of the
// product whose terms are term(row, i, col).
bool IsProduct(const CheckResult& check,
               const std::function<double(int64_t, int64_t, int64_t)>& term) {
  const Shape& s = check.shape;
  if (check.got.size() != static_cast<std::size_t>(s.m * s.k)) return false;
  for (int64_t row = 0; row < s.m; ++row)
    for (int64_t col = 0; col < s.k; ++col) {
      if (check.state(row, col) == ElementState::kUnchecked) continue;
      double sum = 0, abs_sum = 0;
      for (int64_t i = 0; i < s.n; ++i) {
        const double t = term(row, i, col);
        sum += t;
        abs_sum += std::fabs(t);
      }
      const double got = check.got[row * s.k + col];
      if (!std::isfinite(got) || std::fabs(got - sum) > ForwardErrorBound(s.n, abs_sum))
        return false;
    }
  return true;
}

}  // namespace

std::string TransposedInputCause(const CheckResult& check, const std::vector<float>& a,
                                 const std::vector<float>& b) {
  const Shape& s = check.shape;
  if (check.mismatches == 0 || s.n < 2 || a.size() != static_cast<std::size_t>(s.m * s.n) ||
      b.size() != static_cast<std::size_t>(s.n * s.k))
    return "";
  // B read as B[col * n + i]: in bounds only where B is square.
  if (s.n == s.k && IsProduct(check, [&](int64_t row, int64_t i, int64_t col) {
        return static_cast<double>(a[row * s.n + i]) * b[col * s.n + i];
      }))
    return "C came out as A times B transposed: B was read column-major, as B[col * n + i]. B is "
           "row-major, n x k: element (i, col) is B[i * k + col].";
  if (s.m == s.n && IsProduct(check, [&](int64_t row, int64_t i, int64_t col) {
        return static_cast<double>(a[i * s.m + row]) * b[i * s.k + col];
      }))
    return "C came out as A transposed times B: A was read column-major, as A[i * m + row]. A is "
           "row-major, m x n: element (row, i) is A[row * n + i].";
  return "";
}

}  // namespace labkit
