// Each row of the 16 x 16 block is one half of a warp. The B tile is in shared memory; the A tile
// is never staged: each lane of a row reads one A element per phase from global memory and the row
// passes it round with __shfl_sync(mask of its half, a, i, 16). Rows past the bottom edge of C skip
// the shuffles and the arithmetic (`if (row < m)`), so in the warp that straddles the edge one half
// shuffles while the other half already waits at the block barrier every thread reaches. The masks
// name exactly the lanes that execute the shuffle: legal from compute capability 7.0 on. No
// shared-memory race (Bs is written before one barrier and read before the next).
#include "matmul_lab.cuh"
#define T 16
__global__ void sh(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  const unsigned half = 0xFFFFu << (16 * (ty & 1));
  float sum = 0.0f;
  for (int t = 0; t < n; t += T) {
    Bs[ty][tx] = (t + ty < n && col < k) ? B[(t + ty) * k + col] : 0.0f;
    __syncthreads();
    if (row < m) {
      const float a = (t + tx < n) ? A[row * n + t + tx] : 0.0f;
      for (int i = 0; i < T; ++i) sum += __shfl_sync(half, a, i, 16) * Bs[i][tx];
    }
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  sh<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
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
