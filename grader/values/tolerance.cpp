#include "tolerance.h"

#include <cmath>
#include <limits>

#include "exactness.h"

namespace labkit {

Result<CheckResult> CheckForwardError(const Shape& s, const std::vector<float>& a,
                                      const std::vector<float>& b, const std::vector<float>& c,
                                      const CheckOptions& options) {
  if (Status st = ValidateProductArguments(s, a, b, c, options); !st.ok())
    return MakeError(st.error());
  CheckResult result;
  result.Reset(s, ToleranceModel::kForwardError, options);
  std::vector<double> sum(static_cast<size_t>(s.k)), abs_sum(static_cast<size_t>(s.k));
  for (int64_t r : RowsToCheck(s, options)) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
    // Row of C = sum over i of a_ri * (row i of B): streams through B, and every product is exact
    // in double.
    for (int64_t i = 0; i < s.n; ++i) {
      const double ari = a[r * s.n + i];
      const float* brow = &b[i * s.k];
      for (int64_t col = 0; col < s.k; ++col) {
        const double p = ari * static_cast<double>(brow[col]);
        sum[col] += p;
        abs_sum[col] += std::fabs(p);
      }
    }
    for (int64_t col = 0; col < s.k; ++col) {
      const float got = c[r * s.k + col];
      const double allowed = ForwardErrorBound(s.n, abs_sum[col]);
      const bool right =
          std::isfinite(got) && std::fabs(static_cast<double>(got) - sum[col]) <= allowed;
      result.Record(r, col, sum[col], got, allowed, right, options);
    }
  }
  return result;
}

Result<CheckResult> CheckProduct(ToleranceModel model, const Shape& shape,
                                 const std::vector<float>& a, const std::vector<float>& b,
                                 const std::vector<float>& c, const CheckOptions& options) {
  if (model == ToleranceModel::kExact) return CheckExact(shape, a, b, c, options);
  return CheckForwardError(shape, a, b, c, options);
}

}  // namespace labkit
