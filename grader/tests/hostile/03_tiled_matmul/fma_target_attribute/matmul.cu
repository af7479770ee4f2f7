// A correct tiled kernel that asks g++ for FMA instructions itself (the CPU backend compiles for
// x86-64 without them): its default build contracts `sum += a * b` into vfmadd, whose sums are
// not the sequential float sum bit for bit. The grader sees the instruction in the object and makes
// the -ffp-contract=off build as for any FMA, where the sum is exact: full marks, as without the
// attribute. Were the default build taken for that build, this right kernel would fail.
#include "../../common/correct_kernels.cuh"

__global__ void __attribute__((target("fma")))
fused_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int phase = 0; phase < (n - 1) / TILE + 1; ++phase) {
    const int a_col = phase * TILE + tx, b_row = phase * TILE + ty;
    tile_A[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    tile_B[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  fused_tiled_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
