// What must fail: the rows kernel alone; a decoy that declares tiles and waits at barriers
// launched beside the rows kernel doing the work; one kernel that declares tiles and a barrier
// but computes from global memory.
#include "matmul_lab.cuh"

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

__global__ void decoy_kernel(float* C) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  tile_A[threadIdx.y][threadIdx.x] = 0.0f;
  tile_B[threadIdx.y][threadIdx.x] = 1.0f;
  __syncthreads();
  if (tile_A[threadIdx.y][threadIdx.x] > tile_B[threadIdx.y][threadIdx.x]) C[0] = 0.0f;
  __syncthreads();
}

__global__ void declared_but_unused_kernel(const float* A, const float* B, float* C, int m, int n,
                                           int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  tile_A[threadIdx.y][threadIdx.x] = 0.0f;
  tile_B[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  float sum = tile_A[threadIdx.y][threadIdx.x] * tile_B[threadIdx.y][threadIdx.x];
  if (row >= m || col >= k) return;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

namespace {
const dim3 kBlock(TILE, TILE);
dim3 Grid(int m, int k) { return dim3((k - 1) / TILE + 1, (m - 1) / TILE + 1); }
}  // namespace

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows_kernel<<<Grid(m, k), kBlock>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  decoy_kernel<<<Grid(m, k), kBlock>>>(C);
  matmul_rows_kernel<<<Grid(m, k), kBlock>>>(A, B, C, m, n, k);
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  declared_but_unused_kernel<<<Grid(m, k), kBlock>>>(A, B, C, m, n, k);
}
