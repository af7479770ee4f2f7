// No barrier before the tiles are overwritten: a fast thread loads the next phase while a slow one
// still reads this one.
#include "../../common/correct_kernels.cuh"

__global__ void racy(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int phase = 0; phase < (n - 1) / TILE + 1; ++phase) {
    const int a_col = phase * TILE + tx, b_row = phase * TILE + ty;
    tile_A[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    tile_B[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  racy<<<dim3((k - 1) / TILE + 1, (m - 1) / TILE + 1), dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
