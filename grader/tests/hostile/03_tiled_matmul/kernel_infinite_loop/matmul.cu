// A kernel that never ends: the harness hangs in cudaDeviceSynchronize until the run's time limit.
#include "../../common/correct_kernels.cuh"

__global__ void spin_kernel(float* C) {
  __shared__ float tile[TILE][TILE];  // looks like the technique; never gets there
  volatile int forever = 1;
  while (forever) {
  }
  tile[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  C[0] = tile[0][0];
}

void matmul_tiled_any(const float*, const float*, float* C, int, int, int) {
  spin_kernel<<<1, dim3(TILE, TILE)>>>(C);
}
