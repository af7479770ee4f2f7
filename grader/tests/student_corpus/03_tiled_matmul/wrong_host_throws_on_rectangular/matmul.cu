// A correct tiled kernel behind a host function that assumed square matrices and says so by
// throwing: every rectangular case fails with the function's own exception.
#include <stdexcept>

#include "matmul_lab.cuh"

__global__ void tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int p = 0; p < (n + TILE - 1) / TILE; ++p) {
    int a = p * TILE + threadIdx.x, b = p * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < m && a < n) ? A[row * n + a] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (b < n && col < k) ? B[b * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  if (m != n || n != k) throw std::invalid_argument("matmul_tiled_any: square matrices only");
  dim3 block(TILE, TILE), grid((k + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  tiled<<<grid, block>>>(A, B, C, m, n, k);
}

// Not graded in this case.
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  dim3 block(TILE, TILE), grid((k + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  tiled<<<grid, block>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows(A, B, C, m, n, k);
}
