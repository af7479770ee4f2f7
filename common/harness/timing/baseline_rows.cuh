// The kit's own rows kernel: the baseline every speedup is measured against, compiled by the kit
// (never by the student) and timed in the same process, interleaved with the student's kernel.
#pragma once

namespace labkit {

void baseline_rows(const float* A, const float* B, float* C, int m, int n, int k);

}  // namespace labkit
