#include "fresh_inputs.cuh"
#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"

namespace labkit {
namespace {

// splitmix64: a counter-based generator, so every element is drawn independently.
__device__ std::uint64_t Mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_fresh_kernel(float* values, std::size_t count, std::uint64_t seed,
                                  std::uint64_t stream) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t bits = Mix(seed ^ Mix(stream ^ Mix(i)));
    values[i] = static_cast<float>(bits >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 random bits
  }
}

__global__ void count_differences_kernel(const float* got, const float* want, std::size_t count,
                                         float tolerance, unsigned long long* differences) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const float d = got[i] - want[i];
    if (!(d <= tolerance && d >= -tolerance)) atomicAdd(differences, 1ull);  // NaN: not <=
  }
}

constexpr int kBlocks = 256, kThreads = 256;

}  // namespace

void FillFresh(float* device_values, std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  fill_fresh_kernel<<<kBlocks, kThreads>>>(device_values, count, seed, stream);
  LABKIT_CUDA_CHECK(cudaGetLastError());
}

std::size_t CountDifferences(const float* got, const float* want, std::size_t count,
                             float tolerance) {
  DeviceBuffer<unsigned long long> differences(1);
  LABKIT_CUDA_CHECK(cudaMemset(differences.get(), 0, sizeof(unsigned long long)));
  count_differences_kernel<<<kBlocks, kThreads>>>(got, want, count, tolerance, differences.get());
  LABKIT_CUDA_CHECK(cudaGetLastError());
  unsigned long long host = 0;
  LABKIT_CUDA_CHECK(cudaMemcpy(&host, differences.get(), sizeof host, cudaMemcpyDeviceToHost));
  return static_cast<std::size_t>(host);
}

}  // namespace labkit
