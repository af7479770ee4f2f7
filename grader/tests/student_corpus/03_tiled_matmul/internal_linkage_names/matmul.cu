// Kernels kept private to the file (static, and in an anonymous namespace), with the tile's
// side passed through a __constant__ variable that only this file can see.
#include "matmul_lab.cuh"

namespace {
__constant__ int c_tile;  // set from the host before each launch
}

namespace kernels {
static __global__ void rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

static __global__ void tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int t = c_tile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * t + ty;
  const int col = blockIdx.x * t + tx;
  float sum = 0.0f;
  for (int p = 0; p < (n + t - 1) / t; ++p) {
    const int a_col = p * t + tx, b_row = p * t + ty;
    As[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < t; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
}  // namespace kernels

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  const dim3 grid((k + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  kernels::rows<<<grid, block>>>(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const int tile = TILE;
  cudaMemcpyToSymbol(c_tile, &tile, sizeof tile);
  const dim3 block(TILE, TILE);
  const dim3 grid((k + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  kernels::tiled_any<<<grid, block>>>(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}
