// A lab-style source with every construct emu-rewrite handles; compiled through emu-cxx with the
// stand-in header (sequential threads) by pipeline_test.cpp, which checks what it prints.
#include <cstdio>
#include <cuda_runtime.h>

namespace lab {
template <int N>
__global__ void scale(const int* in, int* out, int factor) {
  __shared__ int tile[N], unused;  // two declarators, one unused
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i] * factor;
  unused = 0;
  out[i] = tile[threadIdx.x];
}
}  // namespace lab

__shared__ int file_scope_sum;  // namespace scope: becomes a macro

__global__ void sum_indices(int* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  int* slots = reinterpret_cast<int*>(smem);
  slots[threadIdx.x] = threadIdx.x;
  file_scope_sum += slots[threadIdx.x];
  *out = file_scope_sum;
}

int main() {
  int in[8], out[8], total = -1;
  for (int i = 0; i < 8; ++i) in[i] = i;
  lab::scale<4><<<2, 4>>>(in, out,
                          3);  // arguments over two lines
  sum_indices<<<1, 4, 4 * sizeof(int)>>>(&total);
  std::printf("scale:");
  for (int v : out) std::printf(" %d", v);
  std::printf("\nsum: %d\n%s\n", total, "k<<<1, 1>>>(x) stays in a string");
  return 0;
}
