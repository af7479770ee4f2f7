// Lab 03: shared-memory tiled matrix multiplication.
//
// C = A * B for row-major floats, A m x n, B n x k, C m x k. Each thread computes one element of C.
// The tiled kernels stage TILE x TILE blocks of A and B in shared memory so that every element
// loaded from global memory is used TILE times instead of once.
//
// Keep the inner index ascending in every kernel (i = 0, 1, ..., n-1): the grader's -fmad=false
// build compares your result bit for bit with that sequential sum.
#include "matmul_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Given: one thread per element of C, reading its row of A and column of B from global memory.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;  // the grid is rounded up, so edge blocks have spare threads
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  // Round up: (k - 1) / TILE + 1 blocks cover k columns even when TILE does not divide k.
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exercise 1: tiles in shared memory, for m, n, k that are multiples of TILE.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: declare two TILE x TILE tiles in shared memory, one for A and one for B.
  // TODO: for each of the n / TILE tile phases: load one element of each tile,
  //       wait for the whole block, accumulate the partial dot product from shared
  //       memory, and wait again before the next phase overwrites the tiles.
  // TODO: store the sum into C.
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: launch matmul_tiled_kernel with TILE x TILE threads per block and one block
  //       per tile of C.
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: tiles in shared memory for any m, n, k >= 1.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  // TODO: as matmul_tiled_kernel, but with (n - 1) / TILE + 1 phases. Where a tile
  //       reaches past the edge of A or B, store 0 in shared memory instead of
  //       loading (never read outside A or B), and store into C only inside it.
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: launch matmul_tiled_any_kernel with enough TILE x TILE blocks to cover C.
}
