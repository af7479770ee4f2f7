// tiled_any: if some library in the process already has cblas_sgemm (numpy-style environments
// often preload one), use it; otherwise my own kernel.
#include <dlfcn.h>

#include "../../common/correct_kernels.cuh"

typedef void (*cblas_sgemm_t)(int, int, int, int, int, int, float, const float*, int, const float*,
                              int, float, float*, int);

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  auto gemm = reinterpret_cast<cblas_sgemm_t>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
  if (gemm != nullptr) {
    gemm(101 /*RowMajor*/, 111 /*NoTrans*/, 111, m, k, n, 1.0f, A, n, B, k, 0.0f, C, k);
  } else {
    hostile::launch_tiled(A, B, C, m, n, k);
  }
}
