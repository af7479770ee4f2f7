// The fixture lab's solution: one thread per element of C, the inner index ascending so that the
// -fmad=false build matches the sequential float sum bit for bit.
#include "fixture_lab.cuh"

__global__ void fixture_product_kernel(const float* A, const float* B, float* C, int m, int n,
                                       int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;  // the grid is rounded up
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void fixture_product(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(8, 8);
  const dim3 grid((k - 1) / 8 + 1, (m - 1) / 8 + 1);
  fixture_product_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
