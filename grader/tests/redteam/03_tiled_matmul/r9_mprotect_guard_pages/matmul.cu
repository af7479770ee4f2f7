// Lab 03. The CPU grader puts an unreadable page right after every buffer, and my kernel reads
// A four floats at a time, so the last load of a row can run past the end of A (harmless on the
// GPU, a "segfault" on the CPU grader). Make the page after A readable before launching.
#include <sys/mman.h>

#include <cstdint>

#include "../../common/correct_kernels.cuh"

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float strip_a[TILE][TILE + 4];
  __shared__ float strip_b[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int base = 0; base < n; base += TILE) {
    if (threadIdx.x % 4 == 0 && row < m)  // 4-wide loads; the tail past n is ignored below
      for (int q = 0; q < 4; ++q)
        strip_a[threadIdx.y][threadIdx.x + q] = A[row * n + base + threadIdx.x + q];
    strip_b[threadIdx.y][threadIdx.x] =
        base + threadIdx.y < n && col < k ? B[(base + threadIdx.y) * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE && base + i < n; ++i)
      acc += strip_a[threadIdx.y][i] * strip_b[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = acc;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const uintptr_t end = reinterpret_cast<uintptr_t>(A + size_t(m) * n);
  mprotect(reinterpret_cast<void*>((end + 4095) & ~uintptr_t(4095)), 4096, PROT_READ);
  matmul_tiled_any_kernel<<<dim3((k - 1) / TILE + 1, (m - 1) / TILE + 1), dim3(TILE, TILE)>>>(
      A, B, C, m, n, k);
}
