// Lab 03: tiled_any, tiled only where counted. In a counted case, block 0 of every launch is a
// "sampled" block whose CUDA threads each start on a cleared stack (scheduler.cpp
// clear_stack_below_caller). Everywhere else the threads of a barrier-free block run one after
// another on the same fiber stack, so an uninitialised local holds what the previous thread left. A
// 1-block probe kernel, launched just before the product, sets a flag when any thread sees the
// previous thread's marker: never where the probe is counted, whatever ran before it.
#include "../../common/correct_kernels.cuh"

__device__ int g_plain_run;  // 1: some thread saw a stale marker (not a counting run)

__device__ __attribute__((noinline, noipa)) unsigned peek_stack() {
  volatile unsigned slot[64];
  unsigned v = 0;
  for (int i = 0; i < 64; ++i) v |= (slot[i] == 0xC0FFEE11u);
  return v;
}
__device__ __attribute__((noinline, noipa)) void poke_stack() {
  volatile unsigned slot[64];
  for (int i = 0; i < 64; ++i) slot[i] = 0xC0FFEE11u;
}

// Deep enough that the slots lie below what clear_stack_below_caller leaves (its frame - 256).
__device__ __attribute__((noinline, noipa)) unsigned deep_probe() {
  volatile char pad[4096];
  pad[0] = 0;
  const unsigned seen = peek_stack();
  poke_stack();
  return seen + pad[0];
}

// Cleared before each probe: a counting run that runs the other cases uncounted first must not
// leave the flag set from them.
__global__ void clear_flag_kernel() { g_plain_run = 0; }

__global__ void probe_kernel(const float* unused) {
  if (deep_probe()) g_plain_run = 1;
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  if (g_plain_run) {  // the same for every thread of the launch: no divergent barrier
    for (int i = 0; row < m && col < k && i < n; ++i) acc += A[row * n + i] * B[i * k + col];
  } else {
    for (int t = 0; t < (n - 1) / TILE + 1; ++t) {
      As[ty][tx] = (row < m && t * TILE + tx < n) ? A[row * n + t * TILE + tx] : 0.0f;
      Bs[ty][tx] = (t * TILE + ty < n && col < k) ? B[(t * TILE + ty) * k + col] : 0.0f;
      __syncthreads();
      for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
      __syncthreads();
    }
  }
  if (row < m && col < k) C[row * k + col] = acc;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  clear_flag_kernel<<<1, 1>>>();
  probe_kernel<<<1, 64>>>(A);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
