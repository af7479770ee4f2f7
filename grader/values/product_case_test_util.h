// For the values layer's tests: a product case with generated inputs, its right answer (the
// sequential float sum), and the forward-error check of an answer edited by the test.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "exactness.h"
#include "inputs.h"
#include "tolerance.h"

namespace labkit {

struct ProductCase {
  Shape shape;
  ProductInputs in;
  std::vector<float> right;

  // Small integers by default (a diagnosis's figures stay readable); full mantissas where equal
  // values in C would get in the way.
  explicit ProductCase(Shape s, ValueKind kind = ValueKind::kSmallIntegers)
      : shape(s),
        in(GenerateProductInputs(11, "diag", s, kind)),
        right(SequentialProduct(s, in.a, in.b)) {}
  CheckResult Check(const std::vector<float>& c) const {
    Result<CheckResult> r = CheckForwardError(shape, in.a, in.b, c);
    EXPECT_TRUE(r.ok());
    return *r;
  }
  float& at(std::vector<float>& c, int64_t r, int64_t col) const { return c[r * shape.k + col]; }
};

}  // namespace labkit
