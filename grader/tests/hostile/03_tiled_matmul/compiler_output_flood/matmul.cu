// Includes itself 190 levels deep with a #warning at each: tens of thousands of lines of compiler
// output (each warning repeats the include stack), yet a correct file.
#if __INCLUDE_LEVEL__ < 190
#warning "flood"
#include __FILE__
#endif
#if __INCLUDE_LEVEL__ == 0
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
#endif
