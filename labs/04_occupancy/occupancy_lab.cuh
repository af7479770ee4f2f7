// Lab 04, occupancy, dynamic shared memory and the occupancy API: the frozen interface.
//
// DO NOT MODIFY THIS FILE. The grader compiles your occupancy.cu against this exact header and
// calls the functions below; changing a signature here changes nothing but your build.
//
// C = A * B for row-major float matrices, A of m x n, B of n x k and C of m x k; A, B and C are
// device pointers. The matrix functions launch their kernel and return; the grader synchronises
// and checks for errors itself.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// The side of the square blocks of the given rows kernel.
constexpr int ROWS_BLOCK_SIDE = 16;

// Given: one thread per element of C, no shared memory. The baseline for speed.
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k);
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k);

// Exercise 1: occupancy worked out by hand from cudaGetDeviceProperties (device 0) and
// cudaFuncGetAttributes(kernel), for blocks of `threads_per_block` threads that each ask for
// `dynamic_shared_bytes` of dynamic shared memory. Do not call the occupancy API here.
// The largest number of such blocks one SM can hold at once:
int max_active_blocks_per_sm(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes);
// The fraction of an SM's warp slots those blocks fill (0 to 1):
double theoretical_occupancy(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes);

// Exercise 2: tiles in dynamic shared memory; the block side lives in constant memory.
// Bytes of dynamic shared memory a block of `threads_per_block` threads needs for its two tiles:
size_t required_shared_bytes(int threads_per_block);
// Square blocks of side S (read from your __constant__ variable) and one extern __shared__ buffer
// holding an S x S tile of A followed by an S x S tile of B; any m, n, k >= 1.
__global__ void matmul_dynamic_kernel(const float* A, const float* B, float* C, int m, int n,
                                      int k);
// Stores `block_side` (a power of two from 1 to 32) in constant memory and launches the kernel.
void matmul_dynamic(const float* A, const float* B, float* C, int m, int n, int k, int block_side);

// Exercise 3: the block side the occupancy API suggests for matmul_dynamic_kernel with blocks of
// at most `max_threads` threads, rounded down so that side x side is a power of 4.
int choose_block_side(int max_threads);
// matmul_dynamic with choose_block_side(the device's threads-per-block limit).
void matmul_auto(const float* A, const float* B, float* C, int m, int n, int k);
