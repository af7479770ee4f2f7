// One thread per element of C, no shared memory: the simplest correct kernel, so that a speedup
// over it means the same thing on every GPU and in every run.
#include "baseline_rows.cuh"

#include <cuda_runtime.h>

namespace labkit {
namespace {

constexpr int kBlockSide = 16;

__global__ void baseline_rows_kernel(const float* A, const float* B, float* C, int m, int n,
                                     int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

}  // namespace

void baseline_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(kBlockSide, kBlockSide);
  const dim3 grid((k - 1) / kBlockSide + 1, (m - 1) / kBlockSide + 1);
  baseline_rows_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

}  // namespace labkit
