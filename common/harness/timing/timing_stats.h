// Order statistics for timing series (timing_stats.cpp), used where the harness decides that a
// series of timed repetitions has settled and reports its median.
#pragma once

#include <vector>

namespace labkit {

double median(std::vector<double> values);
// (p75 - p25) / median: how settled a series of timings is.
double relative_spread(std::vector<double> values);

}  // namespace labkit
