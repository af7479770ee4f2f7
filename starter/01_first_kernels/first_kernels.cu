// Lab 01: first matrix-multiply kernels.
//
// C = A * B for row-major floats, A m x n, B n x k, C m x k: element (r, c) of a matrix with K
// columns lives at index r*K + c. Three versions of one loop nest: on the CPU, in a single block
// of threads (one thread per element of C), and in a grid of blocks that covers any m x k.
//
// Keep the inner index ascending (i = 0, 1, ..., n-1) and accumulate in one float in the kernels:
// the grader's -fmad=false build compares them bit for bit with that sequential sum.
#include "first_kernels_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Exercise 1: on the host.
// ---------------------------------------------------------------------------------------------
void matmul_host(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: for every row r < m and column c < k of C, add up A(r, i) * B(i, c) over
  //       i < n and store the sum in C(r, c). Row-major: A(r, i) is A[r * n + i].
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: one block of width x width threads, one thread per element of C.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_one_block_kernel(const float* A, const float* B, float* C, int width) {
  // TODO: the thread's element of C is row threadIdx.y, column threadIdx.x. Compute
  //       its dot product of a row of A and a column of B and store it.
}

void matmul_one_block(const float* A, const float* B, float* C, int m, int n, int k) {
  (void)n, (void)k;  // a square product: m == n == k == width
  // TODO: launch matmul_one_block_kernel as one block of m x m threads.
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: what stops the one-block kernel from growing.
// ---------------------------------------------------------------------------------------------
int largest_one_block_width() {
  // TODO: read the threads-per-block limit of device 0 and return the largest width W
  //       whose W x W threads fit in one block.
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Exercise 4: a grid of BLOCK_SIDE x BLOCK_SIDE blocks, for any m, n, k.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: the thread's row of C comes from the y indices, its column from the x
  //       indices (block index times block size, plus thread index). Threads past
  //       the edge of C must do nothing; the others compute one element.
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  // TODO: launch matmul_rows_kernel with BLOCK_SIDE x BLOCK_SIDE threads per block and
  //       enough blocks in x to cover the k columns and in y to cover the m rows.
}
