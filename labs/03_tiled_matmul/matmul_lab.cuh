// Lab 03, shared-memory tiled matrix multiplication: the frozen interface.
//
// DO NOT MODIFY THIS FILE. The grader compiles your matmul.cu against this exact header and calls
// the three host functions below; changing a signature here changes nothing but your build.
//
// Every function computes C = A * B for row-major float matrices, A of m x n, B of n x k and
// C of m x k. A, B and C are device pointers. Each function launches its kernel and returns; the
// grader synchronises and checks for errors itself.
#pragma once

#include <cuda_runtime.h>

#ifndef LABKIT_TILE
#define LABKIT_TILE 16
#endif

// The side of a square tile, and of a square thread block, in the tiled kernels.
constexpr int TILE = LABKIT_TILE;

// Given: one thread per element of C, no shared memory. The baseline you improve on.
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k);
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k);

// Exercise 1: shared-memory tiles; m, n and k are multiples of TILE.
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k);
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k);

// Exercise 2: shared-memory tiles for any m, n, k >= 1 (partial tiles filled with zeros).
__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k);
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k);
