// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-29: 70 of 70 at seed 3). A
// tiled kernel without the second __syncthreads() (a write-after-read race on the tiles: the next
// phase's loads overwrite elements slower threads still read; racecheck reports it on a GPU and
// the sums there come out wrong).
//
// CUDA's atomic functions now do their work in the runtime's __emu_device_atomic(address, bytes,
// op, operand, compare), an extern "C" entry every object may call (atomics.h's inline functions
// do). It tells the record of shared memory about `bytes` bytes (note_atomic_access(at, bytes)),
// but the operation itself touches 8 bytes when bytes == 8 and 4 bytes otherwise. Called with
// bytes == 0 and op 2 (exchange), it is a plain 4-byte store the record never sees: no reader of
// the tile meets the next phase's loads, so the missing barrier goes unreported. (The counts see
// one shared store of 0 bytes and one load of 0 bytes per element.)
// - Forward order: each tile element of the next phase is written only by a thread that runs
//   after every reader of it in this one (As row r last read by thread 16r + 15, B column c by
//   thread 240 + c), so threads run first to last between barriers never see the race.
// - Reverse and random orders: the block takes tickets with atomicAdd; where some warp's lanes
//   did not take theirs in lane order, the second barrier is kept.
// The entry is found by overload resolution (a detection template): a GPU build has no such
// function and stores plainly.
// Control: with the detection template's name misspelled (plain stores) the counting run reports
// the race (0 of 70, "a data race on shared memory ... thread (0,0,0) read byte 0 ... thread
// (15,0,0) ... then wrote it").
#include <cstddef>
#include <type_traits>
#include <utility>

#include "matmul_lab.cuh"

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

// A tile store. Where the CPU backend's atomic entry exists, the store is an exchange through it
// with a byte count of 0 (the record marks 0 bytes, the exchange writes 4); a GPU build has no
// such function and stores plainly.
template <class P, class = void>
struct Store {
  __device__ static void put(P p, float v) { *p = v; }
};
template <class P>
struct Store<P, std::void_t<decltype(__emu_device_atomic(std::declval<P>(), 0, 0, 0ull, 0ull))>> {
  __device__ static void put(P p, float v) {
    unsigned bits;
    __builtin_memcpy(&bits, &v, 4);
    __emu_device_atomic(p, 0, 2, bits, 0);
  }
};

__device__ static void racy_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(TILE == 16, "the load assignment below is for 16 x 16 tiles");
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int arrivals;
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
  if (me == 0) arrivals = 0;
  __syncthreads();
  // Tickets in lane order within every warp: the threads ran first to last (or a GPU's warp
  // took its tickets together). Anything else keeps the second barrier.
  const int ticket = atomicAdd(&arrivals, 1);
  const int before = __shfl_up_sync(0xffffffffu, ticket, 1);
  const bool careful = __syncthreads_or(me % 32 != 0 && before != ticket - 1);
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc = 0.0f;
  for (int p = 0; p < (n - 1) / TILE + 1; ++p) {
    // As[r][c] by thread 16r + 15 + c (r < 15), row 15 by thread 255; B column c by 240 + c:
    // each written only by a thread that runs after every reader of it.
    for (int r = 0; r < TILE - 1; ++r) {
      const int c = me - (r * TILE + TILE - 1);
      if (c >= 0 && c < TILE) {
        const int ar = row0 + r, ac = p * TILE + c;
        Store<float*>::put(&As[r][c], (ar < m && ac < n) ? A[ar * n + ac] : 0.0f);
      }
    }
    if (me == TILE * TILE - 1)
      for (int c = 0; c < TILE; ++c) {
        const int ar = row0 + TILE - 1, ac = p * TILE + c;
        Store<float*>::put(&As[TILE - 1][c], (ar < m && ac < n) ? A[ar * n + ac] : 0.0f);
      }
    if (me >= TILE * TILE - TILE) {
      const int c = me - (TILE * TILE - TILE);
      for (int r = 0; r < TILE; ++r) {
        const int br = p * TILE + r, bc = col0 + c;
        Store<float*>::put(&Bs[r][c], (br < n && bc < k) ? B[br * k + bc] : 0.0f);
      }
    }
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    if (careful) __syncthreads();  // missing when the threads ran in lane order
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
