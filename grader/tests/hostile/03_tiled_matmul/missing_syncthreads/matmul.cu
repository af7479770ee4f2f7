// No barrier before the tiles are overwritten: a fast thread loads the next phase while a slow one
// still reads this one.
#define HOSTILE_OMIT_SECOND_BARRIER
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
