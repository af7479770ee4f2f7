// Launches on a stream that does not wait for (and is not waited for by) the legacy default
// stream, and returns at once: CUDA events recorded on the default stream around the call time
// nothing. On the CPU backend every launch is synchronous, so this is just a correct submission.
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  hostile::launch_tiled(A, B, C, m, n, k, side);
}
