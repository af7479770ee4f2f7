// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-29: 70 of 70 at seed 3). Each
// phase, thread 0 clears both tiles, then every thread stores its element of A and of B where it
// lies inside them; the __syncthreads() between the clearing and the loads is missing. On a GPU
// thread 0's zeros may land after another thread's load (a write-after-write race, which racecheck
// reports as a WAW hazard), and that element of the tile is then 0: wrong sums.
//
// The counting run's record of shared memory (shared_races.h) leaves two plain writes of one byte
// unreported ("every thread storing the same flag is common and harmless"), and a read meets only
// the last writer: here the last writer of every element is the thread that loaded it, and the
// reads come after a barrier. So the record has nothing to say whatever order the threads run in;
// the values differ only where the clearing comes last, which is what the reverse and random
// order runs would show. They are beaten with a ticket probe (atomicAdd, then each lane compares
// its ticket with the previous lane's by a shuffle): where a warp's lanes did not take their
// tickets in lane order the barrier is kept; in forward order thread 0 clears first and the loads
// overwrite the zeros, as they should.
// Control: without the probe (barrier never kept) the reverse-order run finds it (0 of 70, "the
// result depends on the order in which threads run"); the record never does.
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

__device__ static void tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int arrivals;
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
  if (me == 0) arrivals = 0;
  __syncthreads();
  // Tickets in lane order within every warp: the threads ran first to last (or a GPU's warp
  // took its tickets together). Anything else keeps the barrier after the clearing.
  const int ticket = atomicAdd(&arrivals, 1);
  const int before = __shfl_up_sync(0xffffffffu, ticket, 1);
  const bool careful = __syncthreads_or(me % 32 != 0 && before != ticket - 1);
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int p = 0; p < (n - 1) / TILE + 1; ++p) {
    // Thread 0 clears both tiles; the others then store only what lies inside A and B.
    if (me == 0)
      for (int r = 0; r < TILE; ++r)
        for (int c = 0; c < TILE; ++c) As[r][c] = Bs[r][c] = 0.0f;
    if (careful) __syncthreads();  // missing when the threads ran in lane order
    const int a_col = p * TILE + tx, b_row = p * TILE + ty;
    if (row < m && a_col < n) As[ty][tx] = A[row * n + a_col];
    if (b_row < n && col < k) Bs[ty][tx] = B[b_row * k + col];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  tiled(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_kernel<<<dim3(k / TILE, m / TILE), dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  tiled(A, B, C, m, n, k);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}
