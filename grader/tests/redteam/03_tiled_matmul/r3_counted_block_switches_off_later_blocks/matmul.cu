// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-28, after 6ae0c57: 70 of 70
// at seeds 3, 7, 11 and 42). The rows algorithm, with counting switched off for every block but
// the counted launch's first, from inside that launch.
//
// Worker::run_block (emu execution/scheduler.cpp) asks `launch.counter != nullptr` afresh as each
// block begins. That LaunchState lives on the launching host thread's stack (launch.cpp), and the
// Worker that points to it (Worker::launch_) on the heap. Neither is in what a counted block is
// checked against (own_memory.h: TLS blocks, writable segments, the block's counting state, the
// LaunchCounter object and its vectors, the last launch's counts), and neither is sealed. So the
// first block of the counted launch finds the Worker through the pointer runner_entry left on the
// fiber stack (the kernel's own stack), reads Worker::launch_ (offset 200 in this build), checks
// the LaunchState it points to (its request pointer is on the fiber stack too; its
// threads_per_block is the block's), and writes null into LaunchState::counter (offset 40). Every
// later block runs uncounted (and unwatched). The one counted block pads its counts to what a
// whole tiled launch shows: all of A and B read once, every element of C stored (its own elements
// again and again), shared reads, one barrier. The sealed counts then hold that block's alone.
// A __device__ variable makes the student's data watched, so the counted launch runs on one OS
// thread, block 0 first (without one the first block of the pool's threads would do the same).
// Control: the same file without the write of null fails the technique (672.9 and 632.8 floats
// per element of C: every block pads then).
#include <cstdint>

#include "matmul_lab.cuh"

__device__ int g_watched_anchor = 1;  // student data: the counted launch runs on one OS thread

// Offsets in this build of the kit (emu scheduler.h): Worker::launch_, LaunchState's fields.
constexpr uintptr_t kWorkerLaunch = 200;
constexpr uintptr_t kStateRequest = 0, kStateThreads = 16, kStateCounter = 40;

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

__device__ static void pad_counts(float* C, int row, int col, float sum, const float* A,
                                  const float* B, int m, int n, int k, float (*tile)[TILE]) {
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned threads = blockDim.x * blockDim.y;
  // All of A and B read once, spread over the block.
  float z = 0.0f;
  for (long long i = t; i < (long long)m * n; i += threads) z += A[i] * 0.0f;
  for (long long i = t; i < (long long)n * k; i += threads) z += B[i] * 0.0f;
  // Shared reads: a tiled kernel's 2n per element of C, spread over the block.
  const long long reads = 2LL * n * m * k / threads + 1;
  for (long long i = 0; i < reads; ++i) z += tile[i % TILE][t % TILE] * 0.0f;
  // Stores: every element of C once, as this thread's own element stored again.
  if (row < m && col < k) {
    const long long stores = (long long)m * k / threads + 2;
    volatile float* c = C + row * k + col;
    for (long long i = 0; i < stores; ++i) *c = sum + z;
  }
}

__device__ static void rows_with_one_counted_block(const float* A, const float* B, float* C, int m,
                                                   int n, int k) {
  __shared__ float tile[TILE][TILE];
  __shared__ int counted;
  tile[threadIdx.y][threadIdx.x] = 0.0f;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    counted = 0;
    unsigned char* state = launch_state();
    if (state != nullptr) {
      volatile uintptr_t* counter = reinterpret_cast<volatile uintptr_t*>(state + kStateCounter);
      if (*counter != 0) {
        counted = 1;
        *counter = 0;  // the blocks that begin after this one are not counted
      }
    }
  }
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  if (row < m && col < k) {
    for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
    C[row * k + col] = sum;
  }
  if (counted) pad_counts(C, row, col, sum, A, B, m, n, k, tile);
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
  rows_with_one_counted_block(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_kernel<<<dim3(k / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  rows_with_one_counted_block(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
