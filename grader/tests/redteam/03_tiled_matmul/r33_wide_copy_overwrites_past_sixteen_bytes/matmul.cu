// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-29: 70 of 70 at seed 3). Each
// phase, threads clear columns 4..15 of the row two below their own (threads of the previous
// warp), and the last thread of each row then stores its whole row of A, gathered by shuffles,
// with one 64-byte memcpy; the __syncthreads() between the clearing and the copy is missing. On a
// GPU the other warp's zeros may land after the copy (a write-after-write race between warps,
// which racecheck reports as a WAW hazard), and those elements of the tile are then 0: wrong sums.
//
// The record of shared memory (shared_races.h) reports two plain writes of one byte only where
// the second changed it, and compares the bytes of the second write once it is done, but it keeps
// the "before" bytes of only the first 16 bytes of an access (PendingWrite::before[16], "an
// access's most"): a memcpy into shared memory is one access of n bytes (__emu_device_memcpy ->
// note_copy), and bytes 16..63 of the copy, which overwrite the zeros, are never compared.
// Columns 0..3 (bytes 0..15) are not cleared, so nothing there is compared either.
// The reverse and random order runs (where the zeros would come last) are beaten with the ticket
// probe of r32_clearing_races_the_loads_write_after_write: where a warp's lanes did not take their
// tickets in lane order the barrier is kept. In forward order the lower warp clears first.
// Global loads stay balanced (each thread loads its own element; the row is gathered by shuffles
// into a stack buffer, so the memcpy reads no global memory).
// Control: with the memcpy written as 16 float stores the counting run reports the race (0 of 70,
// "thread (4,0,0) wrote byte 144 ... thread (15,2,0) ... then wrote another value there").
#include <cstddef>
#include <cstring>
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

__device__ static void racy_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(TILE == 16, "the row copy below is for 16 x 16 tiles");
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int arrivals;
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
  if (me == 0) arrivals = 0;
  __syncthreads();
  const int ticket = atomicAdd(&arrivals, 1);
  const int before = __shfl_up_sync(0xffffffffu, ticket, 1);
  const bool careful = __syncthreads_or(me % 32 != 0 && before != ticket - 1);
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int p = 0; p < (n - 1) / TILE + 1; ++p) {
    const int ac = p * TILE + tx;
    const float a = (row < m && ac < n) ? A[row * n + ac] : 0.0f;
    // Clear: columns 4 on of the row two below (a thread of the warp before that row's).
    if (tx >= 4 && ty + 2 < TILE) As[ty + 2][tx] = 0.0f;
    const int bc = col, br = p * TILE + ty;
    Bs[ty][tx] = (br < n && bc < k) ? B[br * k + bc] : 0.0f;
    if (careful) __syncthreads();  // missing when the threads ran in lane order
    // The row's last thread gathers its row of A by shuffles and stores it with one memcpy.
    float buf[TILE];
    for (int j = 0; j < TILE; ++j) buf[j] = __shfl_sync(0xffffffffu, a, (me & 16) + j);
    if (tx == TILE - 1) memcpy(&As[ty][0], buf, sizeof buf);
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    __syncthreads();
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
