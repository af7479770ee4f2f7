// A 16 x 16 tiled kernel that prints a line of debugging from its first thread, with a value
// split by frexpf and modff (library calls that store through a pointer, which the CPU backend
// routes through its own versions so that the stores are counted).
#include <cstdio>

#include "matmul_lab.cuh"

#define T 16
__global__ void tiled_any_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float a_tile[T][T];
  __shared__ float b_tile[T][T];
  const int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
  if (r == 0 && c == 0) {
    int exponent = 0;
    float whole = 0.0f;
    const float mantissa = frexpf(static_cast<float>(n), &exponent);
    const float fraction = modff(n / 3.0f, &whole);
    printf("debug: n = %d = %.3f * 2^%d; n / 3 = %.0f + %.3f\n", n, mantissa, exponent, whole,
           fraction);
  }
  float acc = 0.0f;
  for (int base = 0; base < n; base += T) {
    const int ac = base + threadIdx.x, br = base + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] = (r < m && ac < n) ? A[r * n + ac] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = (br < n && c < k) ? B[br * k + c] : 0.0f;
    __syncthreads();
    for (int i = 0; i < T; ++i) acc += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    __syncthreads();
  }
  if (r < m && c < k) C[r * k + c] = acc;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  tiled_any_kernel<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
}

__global__ void rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m || c >= k) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += A[r * n + i] * B[i * k + c];
  C[r * k + c] = s;
}
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  rows_kernel<<<dim3((k + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}
