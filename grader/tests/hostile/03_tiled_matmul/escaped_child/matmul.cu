// A child that leaves the harness's process group (setsid) and lets go of its output, so killing
// the group misses it; the parent computes the right product. Nothing may outlive the grading.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static bool forked = false;
  if (!forked) {
    forked = true;
    if (fork() == 0) {
      setsid();
      const int null = open("/dev/null", O_RDWR);
      dup2(null, 1);
      dup2(null, 2);
      prctl(PR_SET_NAME, "hostile_escape");
      sleep(60);  // bounded, so a leak here does not last
      _exit(0);
    }
  }
  hostile::launch_tiled(A, B, C, m, n, k);
}
