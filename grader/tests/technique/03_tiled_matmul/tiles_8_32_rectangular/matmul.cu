// Tiles of 8 and 32, and rectangular tiles: a block of BN x BM threads, one element of C each,
// walking n in steps of BK (A's tile BM x BK, B's BK x BN).
#include "../common/square_tiles.cuh"

namespace {
constexpr int BM = 16, BN = 8, BK = 4;

__global__ void rectangular_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[BM][BK];
  __shared__ float tile_B[BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * BN + tx;
  const int row = blockIdx.y * BM + ty, col = blockIdx.x * BN + tx;
  float sum = 0.0f;
  for (int base = 0; base < n; base += BK) {
    if (t < BM * BK) {  // 64 of the 128 threads fill A's tile
      const int r = blockIdx.y * BM + t / BK, c = base + t % BK;
      tile_A[t / BK][t % BK] = (r < m && c < n) ? A[r * n + c] : 0.0f;
    }
    if (t < BK * BN) {  // 32 fill B's
      const int r = base + t / BN, c = blockIdx.x * BN + t % BN;
      tile_B[t / BN][t % BN] = (r < n && c < k) ? B[r * k + c] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < BK; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
}  // namespace

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  variants::square_tiles<8>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  variants::square_tiles<32>(A, B, C, m, n, k);
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(BN, BM);
  const dim3 grid((k - 1) / BN + 1, (m - 1) / BM + 1);
  rectangular_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
