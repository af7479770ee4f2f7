// Lab 01, first matrix-multiply kernels: the frozen interface.
//
// DO NOT MODIFY THIS FILE. The grader compiles your first_kernels.cu against this exact header and
// calls the functions below; changing a signature here changes nothing but your build.
//
// C = A * B for row-major float matrices: A is m x n, B is n x k, C is m x k, and element (r, c)
// of a matrix with K columns is at index r*K + c. The GPU functions take device pointers, launch
// their kernel and return; the grader synchronises and checks for errors itself.
#pragma once

#include <cuda_runtime.h>

// The side of the square thread blocks of the rows kernel.
constexpr int BLOCK_SIDE = 16;

// Exercise 1: the product on the CPU. A, B and C are host pointers.
void matmul_host(const float* A, const float* B, float* C, int m, int n, int k);

// Exercise 2: one block of width x width threads computes a square product C = A * B of
// width x width matrices; the harness calls it with m == n == k == width.
__global__ void matmul_one_block_kernel(const float* A, const float* B, float* C, int width);
void matmul_one_block(const float* A, const float* B, float* C, int m, int n, int k);

// Exercise 3: the largest width that matmul_one_block can handle on the GPU it runs on.
int largest_one_block_width();

// Exercise 4: one thread per element of C, many blocks, any m, n, k >= 1.
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k);
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k);
