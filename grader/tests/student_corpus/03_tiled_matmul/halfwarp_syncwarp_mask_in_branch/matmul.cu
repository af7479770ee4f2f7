// The B tile is shared by the whole 16 x 16 block (__syncthreads), but row ty of the A tile is read
// only by the 16 threads of row ty, which are one half of a warp. So the student stages the A row
// per half-warp and orders it with __syncwarp(mask of that half) instead of a block barrier. Rows
// past the bottom edge of C skip the staging and the arithmetic (the `if (row < m)`): their half of
// the warp goes straight on to the block barrier at the end of the phase, while the other half does
// its two __syncwarp(mask) first. Legal from compute capability 7.0 on (independent thread
// scheduling; __syncthreads counts threads, not warps), and every __syncwarp names exactly the
// lanes that execute it. No shared-memory race: As[ty] is written and read only by its half-warp,
// ordered by __syncwarp(half), and rewritten only after the block barrier.
#include "matmul_lab.cuh"
#define T 16
__global__ void hw_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  const unsigned half = 0xFFFFu << (16 * (ty & 1));  // lanes of this row within the warp
  float sum = 0.0f;
  for (int t = 0; t < n; t += T) {
    Bs[ty][tx] = (t + ty < n && col < k) ? B[(t + ty) * k + col] : 0.0f;
    __syncthreads();
    if (row < m) {
      As[ty][tx] = (t + tx < n) ? A[row * n + t + tx] : 0.0f;
      __syncwarp(half);
      for (int i = 0; i < T; ++i) sum += As[ty][i] * Bs[i][tx];
      __syncwarp(half);
    }
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hw_kernel<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m || c >= k) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += A[r * n + i] * B[i * k + c];
  C[r * k + c] = s;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows_kernel<<<dim3((k + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
}
