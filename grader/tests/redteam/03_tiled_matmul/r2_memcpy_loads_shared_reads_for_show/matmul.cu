// Lab 03, both tiled exercises.
//
// The rows algorithm, three loads in four made by memcpy with a size the compiler cannot see (the
// C library's copy, which the CPU backend's instrumentation does not reach), and a read of shared
// memory every eighth step for show: n / 8 reads per element of C, above the 2n / 64 a tiled
// kernel must make. Loads and shared reads then both look like a tiled kernel's.
#include <cstring>

#include "matmul_lab.cuh"

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__device__ void product(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float zeros[TILE][TILE];
  zeros[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  const size_t one_float = sizeof(float) * (n > 0);  // 4, but not a constant to the compiler
  float sum = 0.0f;
  if (row < m && col < k) {
    for (int i = 0; i < n; ++i) {
      float a, b;
      if (i % 4 == 0) {
        a = A[row * n + i];
        b = B[i * k + col];
      } else {
        memcpy(&a, &A[row * n + i], one_float);
        memcpy(&b, &B[i * k + col], one_float);
      }
      if (i % 8 == 0) sum += zeros[threadIdx.y][(threadIdx.x + i) % TILE];
      sum += a * b;
    }
    C[row * k + col] = sum;
  }
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  product(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  product(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
