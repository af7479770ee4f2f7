// 256 MiB on stdout and stderr before a correct product.
#include <cstdio>
#include <cstring>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static bool flooded = false;
  if (!flooded) {
    flooded = true;
    static char line[1 << 16];
    std::memset(line, 'x', sizeof line - 1);
    for (int i = 0; i < 2048; ++i) std::fputs(line, i % 2 ? stdout : stderr);
  }
  hostile::launch_tiled(A, B, C, m, n, k);
}
