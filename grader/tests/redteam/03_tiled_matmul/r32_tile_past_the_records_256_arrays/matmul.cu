// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-29: 70 of 70 at seed 3). The
// A tile is single-buffered and the second __syncthreads() is missing (a write-after-read race:
// the next phase's loads overwrite A-tile elements slower threads still read; racecheck reports it
// on a GPU and the sums there come out wrong). The B tile is double-buffered and so needs no
// second barrier.
//
// The counting run's record of shared memory (shared_races.h) knows a __shared__ array only once
// the block has declared it (note_shared_array, from poison_shared), and keeps at most 256 arrays
// a block (BlockCounting::kMaxSharedArrays): the 257th and later are dropped without a word. An
// access to such an array is then not a shared access at all to the record or the counts; its
// storage is on the runtime's heap, so it is counted as a global load or store. This kernel
// declares the probe's counter and the B tile first, then 256 one-byte arrays (a template of one
// __shared__ declaration, instantiated for 256 types: 256 distinct arrays, 256 bytes), then the A
// tile, which is past the record's end.
// - Technique: each thread computes two elements of C (columns tx and tx + 16) from one read of
//   As[ty][i], so the A tile's reads, counted as global loads, are n/2 per element of C; with the
//   real loads that is about 0.6 n, under the limit of n. The B tile's reads count as shared.
// - Forward order: each A-tile element of the next phase is written only by a thread that runs
//   after every reader of it (As row r last read by thread 16r + 15).
// - Reverse and random orders: a ticket probe (atomicAdd, then each lane compares its ticket with
//   the previous lane's by a shuffle) keeps the second barrier where a warp's lanes did not take
//   their tickets in lane order (a GPU's warp-aggregated atomicAdd does, so a GPU races).
// On a GPU the 256 pads are 256 bytes of shared memory (nvcc drops them unused); the kernel builds
// there with 5 KiB of shared memory.
// Control: with 200 pads instead of 256 the A tile is recorded and the counting run reports the
// race (0 of 70).
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

// One byte of shared memory per instance: a flag per pad, never read.
template <int I>
struct Pad {
  unsigned char byte;
};
template <int I>
__device__ void declare_pad() {
  __shared__ Pad<I> pad[1];
  (void)pad;
}
template <int... I>
__device__ void declare_pads(std::integer_sequence<int, I...>) {
  (declare_pad<I>(), ...);
}

__device__ static void racy_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(TILE == 16, "the load assignment below is for 16 x 16 tiles");
  __shared__ int arrivals;
  __shared__ float Bs[2][TILE][2 * TILE];  // double buffered: one barrier a phase is enough
  declare_pads(std::make_integer_sequence<int, 256>{});
  __shared__ float As[TILE][TILE];  // single buffered: needs the second barrier, which is missing
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
  if (me == 0) arrivals = 0;
  __syncthreads();
  // Tickets in lane order within every warp: the threads ran first to last (or a GPU's warp
  // took its tickets together). Anything else keeps the second barrier.
  const int ticket = atomicAdd(&arrivals, 1);
  const int before = __shfl_up_sync(0xffffffffu, ticket, 1);
  const bool careful = __syncthreads_or(me % 32 != 0 && before != ticket - 1);
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * 2 * TILE;
  const int row = row0 + ty, col = col0 + tx;
  float acc0 = 0.0f, acc1 = 0.0f;
  for (int p = 0; p < (n - 1) / TILE + 1; ++p) {
    const int buf = p & 1;
    // As[r][c] by thread 16r + 15 + c (r < 15), row 15 by thread 255.
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
    const int br = p * TILE + ty;
    Bs[buf][ty][tx] = (br < n && col < k) ? B[br * k + col] : 0.0f;
    Bs[buf][ty][tx + TILE] = (br < n && col + TILE < k) ? B[br * k + col + TILE] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) {
      const float a = As[ty][i];
      acc0 += a * Bs[buf][i][tx];
      acc1 += a * Bs[buf][i][tx + TILE];
    }
    if (careful) __syncthreads();  // left out when the threads run first to last
  }
  if (row < m && col < k) C[row * k + col] = acc0;
  if (row < m && col + TILE < k) C[row * k + col + TILE] = acc1;
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  racy_tiled(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / (2 * TILE) + 1, (m - 1) / TILE + 1);
  matmul_tiled_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  racy_tiled(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / (2 * TILE) + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
