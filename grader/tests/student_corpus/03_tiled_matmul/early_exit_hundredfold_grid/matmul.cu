// Ten times the blocks needed in each direction ("more blocks can't hurt"): every block outside C
// returns at once, before any barrier.
#include "matmul_lab.cuh"
__global__ void tiled_oversized(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  if (blockIdx.y * TILE >= m || blockIdx.x * TILE >= k) return;  // a whole block outside C
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    const int a_col = t * TILE + threadIdx.x, b_row = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  const dim3 grid(10 * ((k + TILE - 1) / TILE), 10 * ((m + TILE - 1) / TILE));
  tiled_oversized<<<grid, block>>>(A, B, C, m, n, k);
}

// Not graded in this case: the other exercises fall back on a plain one-thread-per-element kernel.
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m && c < k) {
    float s = 0;
    for (int i = 0; i < n; i++) s += A[r * n + i] * B[i * k + c];
    C[r * k + c] = s;
  }
}
void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows_kernel<<<dim3((k + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows(A, B, C, m, n, k);
}
