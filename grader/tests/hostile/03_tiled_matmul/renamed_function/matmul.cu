// matmul_tiled_any renamed (a typo): the harness cannot link.
#include "../../common/correct_kernels.cuh"

void matmul_tiledany(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
