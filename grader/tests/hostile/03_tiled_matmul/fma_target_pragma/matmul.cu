// FMA instructions asked for the whole file (`#pragma GCC target`), the correct kernels after it:
// every multiply-add of the default build is contracted. As fma_target_attribute: the grader finds
// the instructions in the object and grades the -ffp-contract=off build, where the sums are exact.
#pragma GCC target("fma")
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
