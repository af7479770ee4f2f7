// Stand-in for the runtime's force-included header, just enough for emu-rewrite's own tests to
// compile and run rewritten code without emu::runtime: blocks and threads run one after another,
// so kernels used with it must not depend on __syncthreads() ordering.
#pragma once

#include <cstddef>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ __shared__  // expands to itself: survives preprocessing for emu-rewrite

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace emu {
inline dim3 stub_thread, stub_block, stub_block_dim, stub_grid_dim;
inline std::vector<unsigned char> stub_dynamic(0);

template <class T, int ID>
T& block_shared() {
  static T storage;
  return storage;
}

template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(stub_dynamic.data());
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 block, std::size_t smem, int /*stream*/, Args... args) {
  stub_dynamic.assign(smem, 0);
  stub_grid_dim = grid;
  stub_block_dim = block;
  for (unsigned b = 0; b < grid.x; ++b) {
    for (unsigned t = 0; t < block.x; ++t) {
      stub_block = dim3(b);
      stub_thread = dim3(t);
      kernel(args...);
    }
  }
}
}  // namespace emu

#define threadIdx (::emu::stub_thread)
#define blockIdx (::emu::stub_block)
#define blockDim (::emu::stub_block_dim)
#define gridDim (::emu::stub_grid_dim)
