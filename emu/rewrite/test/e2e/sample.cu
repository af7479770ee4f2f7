// End-to-end sample for the CPU backend: built by emu_add_executable() and run by e2e_test.cpp.
// Uses a launch with dynamic shared memory, a template kernel with a static __shared__ tile, and
// barriers that only a real block scheduler (emu::runtime) gets right.
#include <cstdio>
#include <cuda_runtime.h>

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
