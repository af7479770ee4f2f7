// Lab 04: occupancy, dynamic shared memory and the occupancy API.
//
// How many blocks of a kernel fit on one SM at a time decides how many warps the SM can switch
// between while others wait for memory. Exercise 1 works that number out by hand from the device's
// limits and the kernel's resources. Exercises 2 and 3 make the tile size a run-time choice (shared
// memory sized at launch, the side in constant memory) and let the occupancy API choose it.
//
// Keep the inner index ascending in the kernels (i = 0, 1, ..., n-1): the grader's -fmad=false
// build compares them bit for bit with the sequential float sum.
#include <algorithm>
#include <climits>

#include "occupancy_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Given: one thread per element of C, reading its row of A and column of B from global memory.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x along a row of C, y down a column
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < k && row < m) {        // edge blocks of the rounded-up grid have spare threads
    const float* b_col = B + col;  // column `col` of B: one float every k
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += A[row * n + i] * b_col[i * k];
    C[row * k + col] = total;
  }
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const int side = ROWS_BLOCK_SIDE;
  const dim3 grid((k + side - 1) / side, (m + side - 1) / side);
  matmul_rows_kernel<<<grid, dim3(side, side)>>>(A, B, C, m, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exercise 1: occupancy by hand.
// ---------------------------------------------------------------------------------------------

int max_active_blocks_per_sm(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes) {
  // TODO: read the device's limits (cudaGetDeviceProperties) and the kernel's
  //       resources (cudaFuncGetAttributes), then return the smallest of the four
  //       limits on blocks per SM: warp slots, blocks, registers, shared memory.
  (void)kernel, (void)threads_per_block, (void)dynamic_shared_bytes;
  return 0;
}

double theoretical_occupancy(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes) {
  // TODO: active warps per SM over the warps an SM can hold (per SM, not per GPU).
  (void)kernel, (void)threads_per_block, (void)dynamic_shared_bytes;
  return 0.0;
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: one dynamic shared-memory buffer, the block side in constant memory.
// ---------------------------------------------------------------------------------------------
// TODO: a __constant__ int for the block side.

size_t required_shared_bytes(int threads_per_block) {
  // TODO: room for one float of each tile per thread.
  (void)threads_per_block;
  return 0;
}

__global__ void matmul_dynamic_kernel(const float* A, const float* B, float* C, int m, int n,
                                      int k) {
  // TODO: read the side S from constant memory; point one float* at the start of the
  //       extern __shared__ buffer (the A tile) and one S*S floats further (the B
  //       tile); then the tiled loop of lab 03 with 1D indices (row y, column x of a
  //       tile is element y*S + x), partial tiles filled with zeros.
}

void matmul_dynamic(const float* A, const float* B, float* C, int m, int n, int k, int block_side) {
  // TODO: copy block_side into constant memory (cudaMemcpyToSymbol), then launch
  //       matmul_dynamic_kernel with block_side x block_side blocks covering C and
  //       required_shared_bytes(...) as the third launch parameter.
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: the block side from the occupancy API.
// ---------------------------------------------------------------------------------------------
int choose_block_side(int max_threads) {
  // TODO: cudaOccupancyMaxPotentialBlockSizeVariableSMem for matmul_dynamic_kernel,
  //       with required_shared_bytes as the block-size-to-shared-memory function and
  //       max_threads as the limit; round the threads down to a power of 4 and return
  //       its square root.
  (void)max_threads;
  return 0;
}

void matmul_auto(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: matmul_dynamic with the side choose_block_side gives for this device.
  (void)A, (void)B, (void)C, (void)m, (void)n, (void)k;
}
