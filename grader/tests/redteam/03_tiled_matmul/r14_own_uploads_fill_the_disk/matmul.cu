// Route 14: the grading machine's disk filled through the grader's own files. A correct tiled
// kernel, launched after the function copied 300 MiB of its own bytes to the device on every
// call. The record kept every byte of them in each case's plan: a plan file of up to a gigabyte
// (the file-size limit) per case, in every build's record folder, and one more copy of each in
// the replay's folder; the replay then refused the plan as larger than it reads, and labgrade
// said "something in the submission removed or replaced the grader's files". A class graded on
// one machine shares its disk.
#include <vector>

#include "matmul_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Given: one thread per element of C, reading its row of A and column of B from global memory.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;  // the grid is rounded up, so edge blocks have spare threads
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  // Round up: (k - 1) / TILE + 1 blocks cover k columns even when TILE does not divide k.
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exercise 1: tiles in shared memory, for m, n, k that are multiples of TILE.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // this thread's element of C
  const int col = blockIdx.x * TILE + tx;

  float sum = 0.0f;
  for (int phase = 0; phase < n / TILE; ++phase) {
    // Each thread loads one element of each tile: A(row, phase*TILE + tx), B(phase*TILE + ty, col).
    // Neighbouring threads (tx, tx+1) read neighbouring addresses, so the loads coalesce.
    tile_A[ty][tx] = A[row * n + phase * TILE + tx];
    tile_B[ty][tx] = B[(phase * TILE + ty) * k + col];
    __syncthreads();  // the tiles are complete only when every thread has stored its element

    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();  // nobody may overwrite the tiles while a slower thread still reads them
  }
  C[row * k + col] = sum;
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 block(TILE, TILE);
  const dim3 grid(k / TILE, m / TILE);  // sizes are multiples of TILE in this exercise
  matmul_tiled_kernel<<<grid, block>>>(A, B, C, m, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: tiles in shared memory for any m, n, k >= 1.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float tile_A[TILE][TILE];
  __shared__ float tile_B[TILE][TILE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float sum = 0.0f;
  const int phases = (n - 1) / TILE + 1;
  for (int phase = 0; phase < phases; ++phase) {
    const int a_col = phase * TILE + tx;
    const int b_row = phase * TILE + ty;
    // A zero contributes nothing to the sum, so padding partial tiles with zeros keeps the inner
    // loop free of bounds checks. The loads themselves must stay inside A and B.
    tile_A[ty][tx] = (row < m && a_col < n) ? A[row * n + a_col] : 0.0f;
    tile_B[ty][tx] = (b_row < n && col < k) ? B[b_row * k + col] : 0.0f;
    __syncthreads();

    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i] * tile_B[i][tx];
    __syncthreads();
  }
  // Threads outside C still took part in loading and in both barriers; only their store is skipped.
  if (row < m && col < k) C[row * k + col] = sum;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  // 300 MiB of the function's own bytes, 1 MiB at a time, into a scratch buffer: each copy was
  // kept in the case's plan, and each plan written to the grader's disk (and copied for the
  // replay), case after case and build after build.
  static std::vector<char> noise(1 << 20, 1);
  char* scratch = nullptr;
  cudaMalloc(&scratch, noise.size());
  for (int i = 0; i < 300; ++i)
    cudaMemcpy(scratch, noise.data(), noise.size(), cudaMemcpyHostToDevice);
  cudaFree(scratch);
  const dim3 block(TILE, TILE);
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_tiled_any_kernel<<<grid, block>>>(A, B, C, m, n, k);
}
