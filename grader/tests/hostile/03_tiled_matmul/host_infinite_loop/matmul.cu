// The host function itself never returns.
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  volatile int forever = 1;
  while (forever) {
  }
  hostile::launch_tiled(A, B, C, m, n, k);
}
