// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-28, after 6ae0c57: 70 of 70
// at seeds 3, 7 and 11, seed 3 with --tsan too). A tiled kernel that lacks the second
// __syncthreads(); the reverse and random thread-order runs are turned into forward-order runs from
// kernel code.
//
// 93e494d sealed the emulator's settings (config().order among them) because a kernel of an
// uncounted launch could set an order run's thread order back to forward. But the scheduler does
// not read the setting as it orders threads: launch() copies it into the LaunchState
// (LaunchState::order, offset 20), on the launching host thread's stack, and Worker::make_order and
// prepare_threads read that copy, for every later phase of a block and every later block. Nothing
// checks an order run's accesses (no launch of it is counted). So each block's first thread finds
// the LaunchState (through the Worker whose pointer the runner left on the fiber stack, as
// r3_counted_block_switches_off_later_blocks) and writes forward there, before the block's first
// barrier: the block's first phase does nothing that races, and every phase after it runs first
// to last. The race (next phase's tile elements stored by threads that run after every reader of
// them in forward order) never shows. The ThreadSanitizer build keeps the barrier
// (__SANITIZE_THREAD__), a gap THREAT_MODEL.md names.
// Control: without the write of forward, the reverse-order run finds the race.
#include <cstdint>

#include "matmul_lab.cuh"

// Offsets in this build of the kit (emu scheduler.h): Worker::launch_, LaunchState's fields.
constexpr uintptr_t kWorkerLaunch = 200;
constexpr uintptr_t kStateRequest = 0, kStateThreads = 16, kStateOrder = 20;

// The running launch's LaunchState, or null.
__device__ static unsigned char* launch_state() {
  volatile uintptr_t here = 0;
  const uintptr_t me = reinterpret_cast<uintptr_t>(&here);
  const uintptr_t top = (me + 4095) & ~uintptr_t{4095};
  void* probe = malloc(16);  // an address of this OS thread's arena, where its Worker is too
  const uintptr_t heap = reinterpret_cast<uintptr_t>(probe);
  free(probe);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  for (uintptr_t a = (me + 8) & ~uintptr_t{7}; a < top; a += 8) {
    const uintptr_t w = *reinterpret_cast<volatile uintptr_t*>(a);
    if (w % 8 != 0 || w + (64u << 20) < heap || w > heap + (64u << 20)) continue;
    const uintptr_t state = *reinterpret_cast<volatile uintptr_t*>(w + kWorkerLaunch);
    if (state == 0 || state % 8 != 0) continue;
    // The LaunchState's request is a pointer the runner keeps on this stack too.
    for (uintptr_t b = (me + 8) & ~uintptr_t{7}; b < top; b += 8) {
      const uintptr_t r = *reinterpret_cast<volatile uintptr_t*>(b);
      if (r == 0 || r % 8 != 0 || state + 65536 < r || state > r + 65536) continue;
      const volatile uintptr_t* s = reinterpret_cast<const volatile uintptr_t*>(state);
      if (s[kStateRequest / 8] != r) continue;
      if (*reinterpret_cast<const volatile unsigned*>(state + kStateThreads) != threads) continue;
      return reinterpret_cast<unsigned char*>(state);
    }
  }
  return nullptr;
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

__device__ static void racy_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(TILE == 16, "the load assignment below is for 16 x 16 tiles");
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int arrivals;  // poisoned to -1 as each block begins
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
#ifdef __SANITIZE_THREAD__
  const bool careful = true;
#else
  const bool careful = false;
  if (atomicAdd(&arrivals, 1) == -1) {  // the block's first thread to run, whatever the order
    if (unsigned char* state = launch_state())
      *reinterpret_cast<volatile int*>(state + kStateOrder) = 0;  // Order::forward
  }
#endif
  __syncthreads();  // from here on, every phase runs first to last
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc = 0.0f;
  for (int p = 0; p < (n - 1) / TILE + 1; ++p) {
    // As[r][c] by thread 16r + 15 + c (r < 15), row 15 by thread 255; B column c by 240 + c.
    for (int r = 0; r < TILE - 1; ++r) {
      const int c = me - (r * TILE + TILE - 1);
      if (c >= 0 && c < TILE) {
        const int ar = row0 + r, ac = p * TILE + c;
        As[r][c] = (ar < m && ac < n) ? A[ar * n + ac] : 0.0f;
      }
    }
    if (me == TILE * TILE - 1)
      for (int c = 0; c < TILE; ++c) {
        const int ar = row0 + TILE - 1, ac = p * TILE + c;
        As[TILE - 1][c] = (ar < m && ac < n) ? A[ar * n + ac] : 0.0f;
      }
    if (me >= TILE * TILE - TILE) {
      const int c = me - (TILE * TILE - TILE);
      for (int r = 0; r < TILE; ++r) {
        const int br = p * TILE + r, bc = col0 + c;
        Bs[r][c] = (br < n && bc < k) ? B[br * k + bc] : 0.0f;
      }
    }
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    if (careful) __syncthreads();  // missing in the default build
  }
  if (row < m && col < k) C[row * k + col] = acc;
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  racy_tiled(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_kernel<<<dim3(k / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  racy_tiled(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
