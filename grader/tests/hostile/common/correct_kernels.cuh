// A compact, correct tiled kernel for the hostile corpus (grader/tests/hostile/): a case that needs
// correct code plus one hostile act includes this file and adds the act, so no case copies the
// reference solution. Defines matmul_rows and matmul_tiled; each case defines matmul_tiled_any
// (usually by calling hostile::launch_tiled plus its one hostile act).
#pragma once

#include "matmul_lab.cuh"

namespace hostile {

// Any m, n, k >= 1: partial tiles are zero-filled, the inner index ascends (exact without FMA).
__global__ void tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
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
#ifndef HOSTILE_OMIT_SECOND_BARRIER  // the one planted race a case asks for
    __syncthreads();
#endif
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

inline void launch_tiled(const float* A, const float* B, float* C, int m, int n, int k,
                         cudaStream_t stream = 0) {
  const dim3 block(TILE, TILE);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  tiled_kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}

}  // namespace hostile

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
