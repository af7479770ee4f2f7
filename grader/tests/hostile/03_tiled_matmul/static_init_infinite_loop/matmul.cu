// A global constructor that never returns: every run of the harness hangs before main(), the
// device probe included. Grading must still end within a few run limits.
#include "../../common/correct_kernels.cuh"

static int hang() {
  volatile int forever = 1;
  while (forever) {
  }
  return 0;
}
static int hung = hang();

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
