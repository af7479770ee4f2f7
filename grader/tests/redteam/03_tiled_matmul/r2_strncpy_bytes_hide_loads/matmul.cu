// Lab 03, both tiled exercises.
//
// The rows algorithm with three loads in four made a byte at a time by strncpy: a copy of one
// byte is exact (a zero byte is written as zero), and the C library's strncpy is not instrumented
// on the CPU backend, so its reads go uncounted. Shared memory is read every eighth step for show.
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

__device__ float unseen(const float* p) {
  float v;
  for (int byte = 0; byte < 4; ++byte)
    strncpy(reinterpret_cast<char*>(&v) + byte, reinterpret_cast<const char*>(p) + byte, 1);
  return v;
}

__device__ void product(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float zeros[TILE][TILE];
  zeros[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  if (row < m && col < k) {
    for (int i = 0; i < n; ++i) {
      const float a = i % 4 == 0 ? A[row * n + i] : unseen(&A[row * n + i]);
      const float b = i % 4 == 0 ? B[i * k + col] : unseen(&B[i * k + col]);
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
