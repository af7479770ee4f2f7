// Lab 03, both tiled exercises, CPU backend (red-team pass of 2026-11-28, after 6ae0c57: 70 of 70
// at seed 3, with and without --tsan). A tiled kernel that lacks the second __syncthreads() (a
// write-after-read race on the tiles, which racecheck reports on a GPU and which gives wrong sums
// there).
//
// The CPU backend finds a missing barrier three ways: the forward-order run's values, the reverse
// and random thread orders' values, and the ThreadSanitizer build. This kernel beats each:
// - Forward order: the tile elements of the next phase are assigned to threads so that each is
//   written only by a thread that runs after every reader of it in the current phase (As row r is
//   last read by thread 16r + 15, B column c by thread 240 + c). Run first to last between
//   barriers, the race never shows; the loads are still spread over the warps (a tiled kernel's
//   count, warp charge included).
// - Reverse and random orders: each block watches the order its threads arrive in (a ticket taken
//   after a barrier, as r7_thread_order_probe) and keeps the second barrier when it is not the
//   launch order.
// - ThreadSanitizer: its build is told apart at compile time (__SANITIZE_THREAD__) and keeps the
//   barrier (docs/THREAT_MODEL.md says so, of a TSan build that "can avoid its race").
// Controls: without the order probe the reverse-order run finds it (0 of 70, "the result depends on
// the order in which threads run"); without the __SANITIZE_THREAD__ test the --tsan run does.
// r7_thread_order_probe fails today only because its race (the ordinary tile loads) shows in the
// forward order too.
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
  static_assert(TILE == 16, "the load assignment below is for 16 x 16 tiles");
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int arrivals, in_order;
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * TILE + tx;
  if (me == 0) arrivals = 0, in_order = 1;
  __syncthreads();
  const int ticket = atomicAdd(&arrivals, 1);
  if (ticket != me) in_order = 0;
  __syncthreads();
#ifdef __SANITIZE_THREAD__
  const bool careful = true;
#else
  const bool careful = !in_order;
#endif
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
    if (careful) __syncthreads();  // missing in the forward-order runs of the default build
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
