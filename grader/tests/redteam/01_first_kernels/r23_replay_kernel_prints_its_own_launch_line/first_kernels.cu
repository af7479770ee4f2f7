#include <cstdio>
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
  // BEGIN SOLUTION
  // STARTER: // TODO: for every row r < m and column c < k of C, add up A(r, i) * B(i, c) over
  // STARTER: //       i < n and store the sum in C(r, c). Row-major: A(r, i) is A[r * n + i].
  for (int row = 0; row < m; ++row) {
    for (int col = 0; col < k; ++col) {
      float sum = 0.0f;
      // Along row `row` of A the stride is 1; down column `col` of B it is k (a whole row of B).
      for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
      C[row * k + col] = sum;
    }
  }
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: one block of width x width threads, one thread per element of C.
// ---------------------------------------------------------------------------------------------
// Red team: one thread of one block computes all of C (the technique rule needs at least one
// thread per element of C in one block). The launch lines the grader judges that by are written
// by the replay, in this program on the CPU backend: a static initialiser points stdout's FILE at
// fd 3, which run_request opens first (response.jsonl), and the kernel prints the case's line
// with the block the exercise asks for, followed by an unterminated prefix that turns the
// harness's own line for the case into a line that is not JSON (read_json_object_lines drops it).
namespace {
struct PointStdoutAtTheResponse {
  PointStdoutAtTheResponse() { stdout->_fileno = 3; }
} g_point_stdout;
}  // namespace

__global__ void matmul_one_block_kernel(const float* A, const float* B, float* C, int width) {
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  for (int row = 0; row < width; ++row)
    for (int col = 0; col < width; ++col) {
      float sum = 0.0f;
      for (int i = 0; i < width; ++i) sum += A[row * width + i] * B[i * width + col];
      C[row * width + col] = sum;
    }
  const char* id = "one_block_4";  // the drawn width
  if (width == 1) id = "one_block_0";
  if (width == 4) id = "one_block_1";
  if (width == 17) id = "one_block_2";
  if (width == 32) {
    bool identity = true;
    for (int i = 0; i < width * width; ++i)
      identity = identity && A[i] == (i / width == i % width ? 1.0f : 0.0f);
    id = identity ? "one_block_dataset_identity_32" : "one_block_3";
  }
  printf(
      "{\"id\":\"%s\",\"launches\":[{\"block\":[%d,%d,1],\"dynamic_shared_bytes\":0,"
      "\"grid\":[1,1,1],\"kernel\":\"_Z23matmul_one_block_kernelPKfS0_Pfi\"}],"
      "\"status\":\"ok\",\"transfers\":[],\"type\":\"case\"}\n{\"swallowed\":\"",
      id, width, width);
  fflush(stdout);
}

void matmul_one_block(const float* A, const float* B, float* C, int m, int n, int k) {
  (void)n, (void)k;
  matmul_one_block_kernel<<<1, 1>>>(A, B, C, m);
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: what stops the one-block kernel from growing.
// ---------------------------------------------------------------------------------------------
int largest_one_block_width() {
  // BEGIN SOLUTION
  // STARTER: // TODO: read the threads-per-block limit of device 0 and return the largest width W
  // STARTER: //       whose W x W threads fit in one block.
  // STARTER: return 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 0;
  int width = 0;
  while ((width + 1) * (width + 1) <= prop.maxThreadsPerBlock) ++width;
  return width;
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 4: a grid of BLOCK_SIDE x BLOCK_SIDE blocks, for any m, n, k.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  // BEGIN SOLUTION
  // STARTER: // TODO: the thread's row of C comes from the y indices, its column from the x
  // STARTER: //       indices (block index times block size, plus thread index). Threads past
  // STARTER: //       the edge of C must do nothing; the others compute one element.
  // Whole blocks above (left of) this one, then the thread's place inside its own block.
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m && c < k) {  // the last blocks hang over the edge when BLOCK_SIDE does not divide
    const float* a_row = A + r * n;  // row r of A: n consecutive floats
    float dot = 0.0f;
    for (int i = 0; i < n; ++i) dot += a_row[i] * B[i * k + c];  // B(i, c): stride k
    C[r * k + c] = dot;
  }
  // END SOLUTION
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  // BEGIN SOLUTION
  // STARTER: // TODO: launch matmul_rows_kernel with BLOCK_SIDE x BLOCK_SIDE threads per block and
  // STARTER: //       enough blocks in x to cover the k columns and in y to cover the m rows.
  // Rounded up: (k - 1) / BLOCK_SIDE + 1 blocks leave no column out, and never 0 blocks.
  const int blocks_across = (k - 1) / BLOCK_SIDE + 1;
  const int blocks_down = (m - 1) / BLOCK_SIDE + 1;
  matmul_rows_kernel<<<dim3(blocks_across, blocks_down), dim3(BLOCK_SIDE, BLOCK_SIDE)>>>(A, B, C, m,
                                                                                         n, k);
  // END SOLUTION
}
