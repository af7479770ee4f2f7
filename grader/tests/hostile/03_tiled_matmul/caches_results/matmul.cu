// Remembers the last product per output pointer and shape, and on a repeat call copies it back
// instead of computing: fast in the timed loop, wrong once the inputs behind the pointers change.
// The honest path launches the tiled kernel twice (the second launch rewrites the same values), so
// that only the cache could make it faster than the given kernel: a speed point means the cache
// served a timed call.
#include <map>
#include <tuple>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  using Key = std::tuple<const float*, const float*, float*, int, int, int>;
  static std::map<Key, float*> saved;
  const Key key{A, B, C, m, n, k};
  const std::size_t bytes = std::size_t(m) * k * sizeof(float);
  auto hit = saved.find(key);
  if (hit != saved.end()) {
    cudaMemcpyAsync(C, hit->second, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  hostile::launch_tiled(A, B, C, m, n, k);
  hostile::launch_tiled(A, B, C, m, n, k);
  float* copy = nullptr;
  if (cudaMalloc(&copy, bytes) == cudaSuccess) {
    cudaMemcpyAsync(copy, C, bytes, cudaMemcpyDeviceToDevice);
    saved[key] = copy;
  }
}
