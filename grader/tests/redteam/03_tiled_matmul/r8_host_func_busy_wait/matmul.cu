// lab03 tiled_any: queue a host callback after my kernel on a side stream; the callback spins for
// a few ms, and the stream (and whatever the harness launches next on the default stream, which
// is the rows kernel it times me against) waits behind it.
#include <chrono>

#include "../../common/correct_kernels.cuh"

static void CUDART_CB spin(void*) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  while (std::chrono::steady_clock::now() < until) {
  }
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  hostile::launch_tiled(A, B, C, m, n, k);
  if (m >= 1024) cudaLaunchHostFunc(0, spin, nullptr);
}
