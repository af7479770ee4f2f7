// End-to-end sample for the CPU backend: built by emu_add_executable() and run by e2e_test.cpp.
// Uses a launch with dynamic shared memory, a template kernel with a static __shared__ tile,
// shared arrays declared for the whole file whose names host code gives to its own variables, and
// barriers that only a real block scheduler (emu::runtime) gets right.
#include <cuda_runtime.h>

#include <cstdio>

constexpr int kBlock = 8;

void report(const int* values, int count, const int* sums);  // report.cpp, host-only

// Reverses each block's slice through dynamic shared memory: every thread reads what another
// thread wrote, so the barrier matters.
__global__ void reverse_blocks(int* data) {
  extern __shared__ int slice[];
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  slice[t] = data[base + t];
  __syncthreads();
  data[base + t] = slice[blockDim.x - 1 - t];
}

// Declared for the whole file, their names also given to host variables below, which hide them
// there as C++ scoping has it (so the rewrite cannot make these names macros).
extern __shared__ int staged[];
__shared__ int window[kBlock];

// Doubles each block's slice through the file's shared arrays, every thread reading what another
// wrote; sizeof(window) is the array's, as on a GPU.
__global__ void double_blocks(int* data) {
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  int* doubled = staged + 0;
  window[t] = data[base + t];
  __syncthreads();
  doubled[t] = 2 * window[blockDim.x - 1 - t];
  __syncthreads();
  const int length = static_cast<int>(sizeof(window) / sizeof(window[0]));
  data[base + t] = staged[blockDim.x - 1 - t] + length - kBlock;
}

// Sums each block's slice with a tree reduction in a static tile.
template <int N>
__global__ void block_sums(const int* data, int* sums) {
  __shared__ int tile[N];
  const int t = threadIdx.x;
  tile[t] = data[blockIdx.x * N + t];
  __syncthreads();
  for (int stride = N / 2; stride > 0; stride /= 2) {
    if (t < stride) tile[t] += tile[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = tile[0];
}

int main() {
  constexpr int n = 2 * kBlock;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int* data = nullptr;
  int* sums = nullptr;
  cudaMalloc((void**)&data, n * sizeof(int));
  cudaMalloc((void**)&sums, 2 * sizeof(int));
  cudaMemcpy(data, host, n * sizeof(int), cudaMemcpyHostToDevice);

  reverse_blocks<<<2, kBlock, kBlock * sizeof(int)>>>(data);
  const size_t staged = kBlock * sizeof(int);
  struct {
    int window;
  } shape{kBlock};
  double_blocks<<<2, shape.window, staged>>>(data);
  block_sums<kBlock><<<2, kBlock>>>(data, sums);
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::printf("error: %s\n", cudaGetErrorName(err));
    return 1;
  }

  int out_sums[2];
  cudaMemcpy(host, data, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(out_sums, sums, 2 * sizeof(int), cudaMemcpyDeviceToHost);
  report(host, n, out_sums);
  cudaFree(data);
  cudaFree(sums);
  return 0;
}
