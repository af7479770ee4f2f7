// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-28, after 6ae0c57: 70 of 70
// at seeds 3, 7, 11 and 42, seed 3 with --tsan too). The rows algorithm (shared reads and a barrier
// for show), its loads taken back from the block's counts by stores the C maths library makes.
//
// ce66a63 stops a counted block's *instrumented* accesses to the emulator's own memory. A kernel
// may call <cmath> (device_call_guard.h: kCallable), and frexpf(x, int* e) stores the exponent
// through its pointer from inside libm, which is not instrumented: no hook sees that store, so no
// check does (modff, remquof, sincosf and printf's %n would serve as well). The block's counting
// state (begin_block_counting's thread-local BlockCounting) lies at a fixed offset from the
// built-in gridDim in the program's thread-local block (0x30 in this build: the program's TLS
// layout is the kit's, read with nm), so its address is worked out without reading anything.
// Each thread, its rows sum done, sets its own per-thread load bytes (thread_load_bytes, for the
// warp charge) to nothing and then loads a tiled thread's share (2n / TILE floats), counted
// honestly; the block's last thread sets the block's global loads and load bytes to a tiled
// block's (32n floats) a byte at a time: the exponent stored as an int at byte i sets that byte
// (exponents up to 128), lowest byte first. The x passed is volatile: with a constant, g++ folds
// frexpf into a store of its own, which the instrumentation sees (and the run is stopped).
// Control: without the frexpf calls the technique fails (408.0 and 401.8 floats per element of C).
#include <cmath>
#include <cstdint>

#include "matmul_lab.cuh"

#ifndef __SANITIZE_THREAD__
constexpr uintptr_t kStateFromGridDim = 0x30;  // BlockCounting, from gridDim (TLS offsets, nm)
constexpr uintptr_t kGlobalLoads = 0;          // AccessCounts::global_loads
constexpr uintptr_t kGlobalLoadBytes = 8;      // AccessCounts::global_load_bytes
constexpr uintptr_t kThreadLoadBytes = 4360;   // BlockCounting::thread_load_bytes[0]

// Stores `e` (-148 to 128) as an int at `at`, from inside libm.
__device__ static void libm_store(uintptr_t at, int e) {
  volatile float x = e == 0 ? 0.0f : ldexpf(0.5f, e);  // frexpf(x) == 0.5 * 2^e; volatile, or
  (void)frexpf(x, reinterpret_cast<int*>(at));         // g++ folds the call into a store
}

// The 8 bytes at `at` set to `value` (under 2^32, each byte at most 128), lowest byte first: the
// int stored at byte i clears bytes i + 1 to i + 3, all within the 8.
__device__ static void libm_store_u64(uintptr_t at, uint64_t value) {
  libm_store(at, 0);
  libm_store(at + 4, 0);
  for (int i = 0; i < 4; ++i) libm_store(at + i, static_cast<int>((value >> (8 * i)) & 0xFF));
}

// `value` with each of its 4 low bytes capped at 128: a little under, never over.
__device__ static uint64_t representable(uint64_t value) {
  uint64_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t b = (value >> (8 * i)) & 0xFF;
    v |= (b > 128 ? 128 : b) << (8 * i);
  }
  return v;
}
#endif

__device__ static void rows_counted_as_tiles(const float* A, const float* B, float* C, int m, int n,
                                             int k) {
  __shared__ float tile[TILE][TILE];
  __shared__ int arrivals;  // poisoned to -1 as each block begins
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int threads = blockDim.x * blockDim.y;
  tile[ty][tx] = 0.0f;
  __syncthreads();
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f, z = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (row < m && col < k) sum += A[row * n + i] * B[i * k + col];
    if (i % 8 == 0) z += tile[ty][i % TILE];  // 2n / 16 shared reads
    if (i % 8 == 4) z += tile[i % TILE][tx];
  }
  if (row < m && col < k) C[row * k + col] = sum + z;  // z == 0
#ifndef __SANITIZE_THREAD__
  const uintptr_t state = reinterpret_cast<uintptr_t>(&gridDim) + kStateFromGridDim;
  const int me = ty * blockDim.x + tx;
  libm_store_u64(state + kThreadLoadBytes + 8 * me, 0);
  // A tiled thread's share, loaded for the count: 2n / TILE floats.
  volatile float sink = 0.0f;
  for (int i = 0; i < 2 * n / TILE; ++i) sink = sink + A[(i * 131 + me) % (m * n)];
  if (atomicAdd(&arrivals, 1) == threads - 2) {  // the block's last thread
    const uint64_t loads = 1ull * threads * (2 * n / TILE);
    libm_store_u64(state + kGlobalLoads, representable(loads));
    libm_store_u64(state + kGlobalLoadBytes, representable(4 * loads));
  }
#endif
}

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  rows_counted_as_tiles(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_kernel<<<dim3(k / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  rows_counted_as_tiles(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
