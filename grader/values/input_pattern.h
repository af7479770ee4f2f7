// What the kernel multiplied, when it was not A times B: a square input read the wrong way round
// (column-major thinking, B[col * n + i] for B[i * k + col]) gives another product exactly, and
// that product says which input and which index.
#pragma once

#include <string>
#include <vector>

#include "mismatch.h"

namespace labkit {

// C came out as A times B transposed (B square) or A transposed times B (A square), every checked
// element within the forward-error bound of that product, and it is not the right one: the cause
// in words, else "". `a`, `b`: the case's inputs.
std::string TransposedInputCause(const CheckResult& check, const std::vector<float>& a,
                                 const std::vector<float>& b);

}  // namespace labkit
