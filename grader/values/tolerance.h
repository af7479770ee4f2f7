// tolerance: the forward-error model for C = A * B (A m x n, B n x k, row-major float).
//
// Any float evaluation of a length-n dot product, in any order, with or without FMA, satisfies
//   |c - c_exact| <= gamma_n * sum_i |a_ri * b_ic|,  gamma_n = n*u / (1 - n*u),  u = 2^-24
// (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). The reference is computed in
// double from the exact products (a float times a float fits in a double), so its own error is at
// most gamma_n(2^-53) * sum: that is added to the bound, so a correct result can never fail because
// the reference is itself rounded. When the sum is 0 the bound is 0: only an exact zero passes.
#pragma once

#include <vector>

#include "forward_error.h"  // Gamma, ForwardErrorBound: the model, shared with the harness
#include "mismatch.h"

namespace labkit {

// Compares C with A * B under the forward-error model. Errors only for bad arguments (sizes,
// non-finite inputs; see ValidateProductArguments); a wrong C is a CheckResult with mismatches.
Result<CheckResult> CheckForwardError(const Shape& shape, const std::vector<float>& a,
                                      const std::vector<float>& b, const std::vector<float>& c,
                                      const CheckOptions& options = {});

// The model picks the check: kForwardError here, kExact in exactness.h.
Result<CheckResult> CheckProduct(ToleranceModel model, const Shape& shape,
                                 const std::vector<float>& a, const std::vector<float>& b,
                                 const std::vector<float>& c, const CheckOptions& options = {});

}  // namespace labkit
