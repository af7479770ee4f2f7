// Correct tiled products with square tiles of any width T (T x T threads per block, any m, n, k),
// for the technique-by-behaviour test (grader/tests/technique_test.cpp): every T >= 2 must pass.
#pragma once

#include "matmul_lab.cuh"

namespace variants {

template <int T>
__global__ void square_tiles_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[T][T];
  __shared__ float tile_B[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float sum = 0.0f;
  for (int phase = 0; phase < (n - 1) / T + 1; ++phase) {
    const int a_col = phase * T + tx, b_row = phase * T + ty;
    tile_A[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    tile_B[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < T; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

template <int T>
void square_tiles(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(T, T);
  const dim3 grid((k - 1) / T + 1, (m - 1) / T + 1);
  square_tiles_kernel<T><<<grid, block>>>(A, B, C, m, n, k);
}

}  // namespace variants
