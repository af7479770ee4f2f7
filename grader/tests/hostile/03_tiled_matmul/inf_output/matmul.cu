// The right product, except one +Inf at the last element.
#include "../../common/correct_kernels.cuh"

__global__ void poison(float* C, int m, int k) { C[m * k - 1] = 1.0f / 0.0f; }

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
  poison<<<1, 1>>>(C, m, k);
}
