// The forward-error model of a float dot product, in one place for both sides of the process
// boundary: labgrade checks each case's C with it (grader/values/tolerance.h), and the harness
// checks every timed repetition's output against the rows kernel's with it (matmul_device.cu).
//
// Any float evaluation of a length-n dot product, in any order, with or without FMA, satisfies
//   |c - c_exact| <= gamma_n * sum_i |a_ri * b_ic|,  gamma_n = n*u / (1 - n*u),  u = 2^-24
// (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). Plain C++17, header only.
#pragma once

#include <cstdint>
#include <limits>

namespace labkit {

constexpr double kFloatUnitRoundoff = 0x1p-24;
constexpr double kDoubleUnitRoundoff = 0x1p-53;

// n*u / (1 - n*u); +infinity when n*u >= 1 (the model says nothing there).
inline double Gamma(std::int64_t n, double u = kFloatUnitRoundoff) {
  const double nu = static_cast<double>(n) * u;
  if (nu >= 1.0) return std::numeric_limits<double>::infinity();
  return nu / (1.0 - nu);
}

// The per-element bound for an inner dimension n and absolute sum `abs_sum`, against a reference
// taken in double from the exact products: that reference's own error (at most
// gamma_n(2^-53) * abs_sum) is added, so a correct result never fails because the reference is
// rounded too. 0 when the sum is 0: only an exact zero passes there.
inline double ForwardErrorBound(std::int64_t n, double abs_sum) {
  if (abs_sum == 0.0) return 0.0;
  return (Gamma(n) + Gamma(n, kDoubleUnitRoundoff)) * abs_sum;
}

}  // namespace labkit
