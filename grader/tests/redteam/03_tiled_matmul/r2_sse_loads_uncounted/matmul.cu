// Lab 03, both tiled exercises, for a grader without a GPU.
//
// The rows algorithm with A's row read two floats at a time by an SSE intrinsic (_mm_loadl_pi),
// which g++ compiles from a builtin its AddressSanitizer instrumentation does not see: half of the
// loads of A go uncounted on the CPU backend. No GPU has SSE, so the file says which backend it
// is built for.
#include <xmmintrin.h>

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
  float sum = 0.0f;
  if (row < m && col < k) {
    int i = 0;
#ifdef __LABKIT_EMU__
    for (; i + 1 < n; i += 2) {
      float pair[4];
      _mm_storeu_ps(pair, _mm_loadl_pi(_mm_setzero_ps(),
                                      reinterpret_cast<const __m64*>(&A[row * n + i])));
      sum += pair[0] * B[i * k + col] + pair[1] * B[(i + 1) * k + col];
      if (i % 8 == 0) sum += zeros[threadIdx.y][(threadIdx.x + i) % TILE];
    }
#endif
    for (; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
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
