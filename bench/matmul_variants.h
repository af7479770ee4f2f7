// The launchers the benchmark calls, as renamed by matmul_rename.h in the two builds of
// solutions/03_tiled_matmul/matmul.cu (bench/CMakeLists.txt). Same contract as matmul_lab.cuh:
// row-major C = A * B, A m x n, B n x k, device pointers, launch on the default stream and return.
#pragma once

// From the TILE 16 build. The rows kernel's block is TILE x TILE, so this is the lab's baseline.
void matmul_rows_t16(const float* A, const float* B, float* C, int m, int n, int k);
void matmul_tiled_t16(const float* A, const float* B, float* C, int m, int n, int k);

// From the TILE 32 build.
void matmul_tiled_t32(const float* A, const float* B, float* C, int m, int n, int k);
