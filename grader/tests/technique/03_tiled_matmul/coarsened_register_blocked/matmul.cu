// Thread coarsening (each thread of a 16 x 4 block computes 4 elements of a column of C) and 2-D
// register blocking (each thread of an 8 x 8 block computes a 4 x 4 patch of a 32 x 32 block
// tile from registers loaded out of shared memory), both for any m, n, k.
#include "matmul_lab.cuh"

namespace {
constexpr int T = 16, ROWS_PER_THREAD = 4;

__global__ void coarsened_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[T][T];
  __shared__ float tile_B[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;  // 16 x 4 threads, each filling 4 rows of a tile
  const int col = blockIdx.x * T + tx;
  float sum[ROWS_PER_THREAD] = {};
  for (int base = 0; base < n; base += T) {
    for (int j = 0; j < ROWS_PER_THREAD; ++j) {
      const int r = ty * ROWS_PER_THREAD + j, row = blockIdx.y * T + r;
      tile_A[r][tx] = (row < m && base + tx < n) ? A[row * n + base + tx] : 0.0f;
      tile_B[r][tx] = (base + r < n && col < k) ? B[(base + r) * k + col] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < T; ++i) {
      const float b = tile_B[i][tx];
      for (int j = 0; j < ROWS_PER_THREAD; ++j) sum[j] += tile_A[ty * ROWS_PER_THREAD + j][i] * b;
    }
    __syncthreads();
  }
  for (int j = 0; j < ROWS_PER_THREAD; ++j) {
    const int row = blockIdx.y * T + ty * ROWS_PER_THREAD + j;
    if (row < m && col < k) C[row * k + col] = sum[j];
  }
}

constexpr int BM = 32, BN = 32, BK = 8, TM = 4, TN = 4;  // 8 x 8 threads

__global__ void register_blocked_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float tile_A[BM][BK];
  __shared__ float tile_B[BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 8 + tx;
  float acc[TM][TN] = {};
  for (int base = 0; base < n; base += BK) {
    for (int e = t; e < BM * BK; e += 64) {  // 256 elements of each tile, 4 per thread
      const int ar = blockIdx.y * BM + e / BK, ac = base + e % BK;
      tile_A[e / BK][e % BK] = (ar < m && ac < n) ? A[ar * n + ac] : 0.0f;
      const int br = base + e / BN, bc = blockIdx.x * BN + e % BN;
      tile_B[e / BN][e % BN] = (br < n && bc < k) ? B[br * k + bc] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < BK; ++i) {
      float a[TM], b[TN];  // registers: each shared value read once, used TN (or TM) times
      for (int r = 0; r < TM; ++r) a[r] = tile_A[ty * TM + r][i];
      for (int c = 0; c < TN; ++c) b[c] = tile_B[i][tx * TN + c];
      for (int r = 0; r < TM; ++r)
        for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
    }
    __syncthreads();
  }
  for (int r = 0; r < TM; ++r)
    for (int c = 0; c < TN; ++c) {
      const int row = blockIdx.y * BM + ty * TM + r, col = blockIdx.x * BN + tx * TN + c;
      if (row < m && col < k) C[row * k + col] = acc[r][c];
    }
}
}  // namespace

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(T, T / ROWS_PER_THREAD);
  const dim3 grid((k - 1) / T + 1, (m - 1) / T + 1);
  coarsened_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(8, 8);
  const dim3 grid((k - 1) / BN + 1, (m - 1) / BM + 1);
  register_blocked_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled(A, B, C, m, n, k);
}
