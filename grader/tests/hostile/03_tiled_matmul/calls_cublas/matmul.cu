// The product from cuBLAS instead of the student's own kernel. The lab links no cuBLAS (and the
// CPU backend has none).
#include <cublas_v2.h>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    cublasCreate(&h);
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, &one, B, k, A, n, &zero, C, k);
}
