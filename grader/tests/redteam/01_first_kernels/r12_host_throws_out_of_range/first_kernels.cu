// Lab 01, the host product only, with an off-by-one: the loop runs to i <= n, and the row kept in
// a std::vector is read with .at(), which throws std::out_of_range on the last step. Nothing in
// it is aimed at the grader: a wrong answer that should get a zero (or a crash) with the cause.
#include <vector>

#include "first_kernels_lab.cuh"

void matmul_host(const float* A, const float* B, float* C, int m, int n, int k) {
  std::vector<float> row(n);
  for (int r = 0; r < m; ++r) {
    for (int i = 0; i < n; ++i) row[i] = A[r * n + i];
    for (int c = 0; c < k; ++c) {
      float sum = 0.0f;
      for (int i = 0; i <= n; ++i) sum += row.at(i) * B[i * k + c];
      C[r * k + c] = sum;
    }
  }
}

__global__ void matmul_one_block_kernel(const float*, const float*, float*, int) {}
void matmul_one_block(const float*, const float*, float*, int, int, int) {}
int largest_one_block_width() { return 0; }
__global__ void matmul_rows_kernel(const float*, const float*, float*, int, int, int) {}
void matmul_rows(const float*, const float*, float*, int, int, int) {}
