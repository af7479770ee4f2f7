// Host memory eaten and touched without end (up to 12 GiB, half again the sandbox's 8 GiB; the
// test grades it under 1 GiB, expect.yaml says why). It volunteers as the OOM killer's first
// choice (oom_score_adj 1000) so that, where the grader sets no memory limit, the machine kills
// the hog and nothing else.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  if (FILE* f = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("1000", f);
    std::fclose(f);
  }
  const std::size_t chunk = std::size_t(256) << 20;
  for (int i = 0; i < 48; ++i) {
    char* p = static_cast<char*>(std::malloc(chunk));
    if (p == nullptr) break;
    std::memset(p, i + 1, chunk);
  }
  hostile::launch_tiled(A, B, C, m, n, k);
}
