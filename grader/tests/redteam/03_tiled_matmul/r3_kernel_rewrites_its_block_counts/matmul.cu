// Lab 03, both tiled exercises, CPU backend. The rows algorithm, with shared memory read and a
// barrier passed for show. What the counted launch counts of a block sits, until the block ends,
// in the emulator's thread-local `BlockCounting` (emu access_counter.cpp), reached through
// `counted_block`, a pointer in the program's static TLS block between gridDim and threadIdx, which
// every kernel names. Each CUDA thread, once its dot product is done, takes back from the block's
// global-load counts (and from the per-thread bytes the warp charge is made from) all it loaded
// beyond what a tiled kernel's thread would: the block's counts then read as 2n / TILE per element.
#include <cstdint>

#include "matmul_lab.cuh"

static long g_offset = -1;  // of counted_block from &gridDim, once seen

// The block's counting state, or null outside a counted launch. Found without naming it: the one
// word of the TLS window [&gridDim, &threadIdx] that points into the window below itself (the state
// also holds addresses in the window, the last load it counted, which is this scan's own).
__device__ static unsigned char* counting_state() {
#ifdef __SANITIZE_THREAD__
  return nullptr;  // the TSan build never counts
#else
  const uintptr_t lo = reinterpret_cast<uintptr_t>(&gridDim);
  const uintptr_t hi = reinterpret_cast<uintptr_t>(&threadIdx) + sizeof threadIdx;
  long off = __atomic_load_n(&g_offset, __ATOMIC_RELAXED);
  if (off < 0) {
    for (uintptr_t a = (lo + 7) & ~uintptr_t{7}; a + 8 <= hi; a += 8) {
      const uintptr_t v = *reinterpret_cast<const volatile uintptr_t*>(a);
      if (v >= lo && v + 184 <= a) {
        off = static_cast<long>(a - lo);
        __atomic_store_n(&g_offset, off, __ATOMIC_RELAXED);
        break;
      }
    }
    if (off < 0) return nullptr;
  }
  const uintptr_t v = *reinterpret_cast<const volatile uintptr_t*>(lo + off);
  if (v < lo || v >= hi) return nullptr;
  return reinterpret_cast<unsigned char*>(v);
#endif
}

// BlockCounting: AccessCounts counts {global_loads, global_load_bytes, ...} at 0, and the
// std::vector<uint64_t> thread_load_bytes (each CUDA thread's, for the warp charge) at 280. A
// thread that loaded `loaded` floats takes back all but the 2n / TILE a tiled kernel's thread
// loads.
__device__ static void forget_my_loads(int loaded, int n) {
  unsigned char* s = counting_state();
  if (s == nullptr) return;
  const uint64_t tiled = 2 * ((n + TILE - 1) / TILE);
  if (static_cast<uint64_t>(loaded) <= tiled) return;
  const uint64_t extra = loaded - tiled;
  volatile uint64_t* counts = reinterpret_cast<volatile uint64_t*>(s);
  counts[0] = counts[0] - extra;      // global_loads
  counts[1] = counts[1] - 4 * extra;  // global_load_bytes
  uint64_t* per_thread = *reinterpret_cast<uint64_t* volatile*>(s + 280);
  volatile uint64_t* mine = per_thread + threadIdx.y * blockDim.x + threadIdx.x;
  *mine = *mine - 4 * extra;
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

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  As[threadIdx.y][threadIdx.x] = 0.0f;
  Bs[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f, z = 0.0f;
  if (row < m && col < k) {
    for (int i = 0; i < n; ++i) {
      if (i % 16 == 0) z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][i % TILE];
      sum += A[row * n + i] * B[i * k + col];
    }
    C[row * k + col] = sum + z;  // z == 0
    forget_my_loads(2 * n, n);
  }
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}
