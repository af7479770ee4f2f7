// Inputs no submission has seen, and an on-device comparison with the kit's own result: each
// timed repetition multiplies matrices drawn just before it from a seed the harness picks at
// start, so a result kept from an earlier call (in device memory, keyed by the inputs) cannot be
// handed back, and its output is compared with the rows kernel's on the same inputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace labkit {

// `count` floats in [-1, 1) from (seed, stream): the same pair always gives the same values.
void FillFresh(float* device_values, std::size_t count, std::uint64_t seed, std::uint64_t stream);

// How many elements of `got` differ from `want` by more than `tolerance` (NaN always differs).
std::size_t CountDifferences(const float* got, const float* want, std::size_t count,
                             float tolerance);

}  // namespace labkit
