// The compile line names the lab's folder (-I labs/03_tiled_matmul), so a quoted include relative
// to it reaches the kit's reference solution. A grader that hides solutions/ from student builds
// compiles the correct fallback below.
#if __has_include("../../solutions/03_tiled_matmul/matmul.cu")
#error "HOSTILE: the reference solution is visible to the student's compiler"
#endif
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
}
