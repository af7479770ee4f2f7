// A store 1 GiB past the end of C, from one thread of a correct kernel.
#include "../../common/correct_kernels.cuh"

__global__ void far_store(float* C) { C[std::size_t(1) << 28] = 1.0f; }

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
  far_store<<<1, 1>>>(C);
}
