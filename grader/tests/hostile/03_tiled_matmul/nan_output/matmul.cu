// The right product, except one NaN.
#include <cmath>
#include "../../common/correct_kernels.cuh"

__global__ void poison(float* C, int k) { C[0 * k + 0] = nanf(""); }

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
  poison<<<1, 1>>>(C, k);
}
