// exactness: the bit-exact model for the -fmad=false build. There every product is rounded to float
// and added in ascending order of the inner index, one rounding per operation:
//   float acc = 0; for (i = 0; i < n; ++i) acc = acc + (float)(a[r][i] * b[i][c]);
// A tiled kernel that walks the tiles in order (and zero-fills partial tiles, whose products are
// +0 and leave acc unchanged) gets exactly these bits. exactness.cpp is compiled with
// -ffp-contract=off so that the compiler cannot fuse the multiply and add.
#pragma once

#include <cstdint>
#include <vector>

#include "mismatch.h"

namespace labkit {

// sum over i of a_row[i] * b[i*k + col], sequentially in float.
float SequentialDot(const float* a_row, const float* b, int64_t n, int64_t k, int64_t col);

// C = A * B with SequentialDot for every element. Precondition: sizes match `shape`.
std::vector<float> SequentialProduct(const Shape& shape, const std::vector<float>& a,
                                     const std::vector<float>& b);

// Whether `c` is, bit for bit, the product summed in ascending order with a fused multiply-add at
// every step (acc = fmaf(a, b, acc)): what an explicit fmaf or __fmaf_rn in the inner loop gives,
// which the -fmad=false build's model does not. False when sizes do not match `shape`.
bool IsFusedSequentialProduct(const Shape& shape, const std::vector<float>& a,
                              const std::vector<float>& b, const std::vector<float>& c);

// Same bits. +0 and -0 differ; NaNs are equal only with the same payload.
bool BitwiseEqual(float x, float y);

// Floats between x and y on the number line, counting both zeros as one point: UlpDistance(x, x)
// is 0, UlpDistance(-0, +0) is 0, the smallest positive and negative subnormals are 2 apart.
// Either argument NaN: UINT64_MAX.
uint64_t UlpDistance(float x, float y);

// Compares C with SequentialProduct bit for bit (mismatches carry their ULP distance).
Result<CheckResult> CheckExact(const Shape& shape, const std::vector<float>& a,
                               const std::vector<float>& b, const std::vector<float>& c,
                               const CheckOptions& options = {});

}  // namespace labkit
