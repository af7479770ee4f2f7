// Order statistics for timing series. Medians, not means: one descheduled run must not move a
// student's score.
#include <algorithm>
#include <vector>

#include "timing_stats.h"

namespace labkit {
namespace {

double quantile(std::vector<double>& sorted, double q) {
  const double pos = q * (sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

double relative_spread(std::vector<double> values) {
  if (values.size() < 4) return 1.0;
  std::sort(values.begin(), values.end());
  const double mid = quantile(values, 0.5);
  return mid > 0 ? (quantile(values, 0.75) - quantile(values, 0.25)) / mid : 1.0;
}

}  // namespace labkit
