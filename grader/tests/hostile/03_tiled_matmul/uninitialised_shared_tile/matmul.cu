// Partial tiles are not zero-filled: where a tile reaches past A or B, shared memory keeps whatever
// it held (poison on the CPU backend, the previous phase's values or garbage on a GPU).
#include "../../common/correct_kernels.cuh"

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int phase = 0; phase < (n - 1) / TILE + 1; ++phase) {
    const int a_col = phase * TILE + tx, b_row = phase * TILE + ty;
    if (row < m && a_col < n) tile_A[ty][tx] = A[row * n + a_col];
    if (b_row < n && col < k) tile_B[ty][tx] = B[b_row * k + col];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any_kernel<<<dim3((k - 1) / TILE + 1, (m - 1) / TILE + 1), dim3(TILE, TILE)>>>(
      A, B, C, m, n, k);
}
