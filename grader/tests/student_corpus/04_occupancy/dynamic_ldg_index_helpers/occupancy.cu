// Lab 04, exercise 2 only, written with __ldg and small index helpers.
#include "occupancy_lab.cuh"

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < k && row < m) {
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += A[row * n + i] * B[i * k + col];
    C[row * k + col] = total;
  }
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k + ROWS_BLOCK_SIDE - 1) / ROWS_BLOCK_SIDE, (m + ROWS_BLOCK_SIDE - 1) / ROWS_BLOCK_SIDE);
  matmul_rows_kernel<<<grid, dim3(ROWS_BLOCK_SIDE, ROWS_BLOCK_SIDE)>>>(A, B, C, m, n, k);
}

int max_active_blocks_per_sm(const void*, int, size_t) { return 0; }
double theoretical_occupancy(const void*, int, size_t) { return 0.0; }

__constant__ int tile_side;

size_t required_shared_bytes(int threads_per_block) {
  return static_cast<size_t>(threads_per_block) * 2 * sizeof(float);
}

__device__ __forceinline__ int at(int r, int c, int width) { return r * width + c; }
__device__ __forceinline__ float load_or_zero(const float* p, bool inside) {
  return inside ? __ldg(p) : 0.0f;
}

__global__ void matmul_dynamic_kernel(const float* A, const float* B, float* C, int m, int n,
                                      int k) {
  extern __shared__ float buffer[];
  const int side = tile_side;
  float* tile_a = &buffer[0];
  float* tile_b = &buffer[side * side];
  const int x = threadIdx.x, y = threadIdx.y;
  const int r = blockIdx.y * side + y, c = blockIdx.x * side + x;
  const int phases = n / side + (n % side != 0);
  float value = 0.0f;
  for (int p = 0; p < phases; ++p) {
    const int base = p * side;
    tile_a[at(y, x, side)] = load_or_zero(&A[at(r, base + x, n)], r < m && base + x < n);
    tile_b[at(y, x, side)] = load_or_zero(&B[at(base + y, c, k)], base + y < n && c < k);
    __syncthreads();
#pragma unroll 4
    for (int i = 0; i < side; ++i) value += tile_a[at(y, i, side)] * tile_b[at(i, x, side)];
    __syncthreads();
  }
  if (r < m && c < k) C[at(r, c, k)] = value;
}

void matmul_dynamic(const float* A, const float* B, float* C, int m, int n, int k, int block_side) {
  cudaMemcpyToSymbol(tile_side, &block_side, sizeof block_side);
  const dim3 block(block_side, block_side);
  const dim3 grid(k / block_side + (k % block_side != 0), m / block_side + (m % block_side != 0));
  matmul_dynamic_kernel<<<grid, block, required_shared_bytes(block_side * block_side)>>>(A, B, C,
                                                                                        m, n, k);
}

int choose_block_side(int) { return 0; }
void matmul_auto(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_dynamic(A, B, C, m, n, k, 16);
}
