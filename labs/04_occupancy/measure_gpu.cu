// For the handout's table (handouts/04_occupancy.md): lab 04's reference solution at 2048^3 on a
// real GPU, for every block side: blocks per SM and theoretical occupancy from the occupancy API,
// median time and GFLOP/s, next to the rows kernel and the side the API chooses. Built and run by
// measure_gpu.sh; prints a Markdown table.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"
#include "labkit/median_time.cuh"
#include "occupancy_lab.cuh"

namespace {

constexpr int kSize = 2048;
constexpr int kReps = 20;

template <class Launch>
double median_ms(Launch launch) {
  return labkit::median_launch_ms(launch, kReps);
}

double gflops(double ms) { return 2.0 * kSize * kSize * kSize / (ms * 1e6); }

}  // namespace

int main() {
  const std::size_t count = std::size_t(kSize) * kSize;
  labkit::DeviceBuffer<float> A(count), B(count), C(count);
  const std::vector<float> ones(count, 1.0f);
  LABKIT_CUDA_CHECK(cudaMemcpy(A.get(), ones.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  LABKIT_CUDA_CHECK(cudaMemcpy(B.get(), ones.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  cudaDeviceProp prop;
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, %d x %d x %d\n\n", prop.name, prop.multiProcessorCount, kSize, kSize,
              kSize);
  std::printf("| kernel | block | blocks/SM (API) | occupancy (API) | time (ms) | GFLOP/s |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  const double rows = median_ms([&] { matmul_rows(A.get(), B.get(), C.get(), kSize, kSize, kSize); });
  std::printf("| rows | %d x %d | - | - | %.3f | %.0f |\n", ROWS_BLOCK_SIDE, ROWS_BLOCK_SIDE, rows,
              gflops(rows));
  for (int side = 4; side <= 32; side *= 2) {
    const int threads = side * side;
    int blocks = 0;
    LABKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, matmul_dynamic_kernel, threads, required_shared_bytes(threads)));
    const double occupancy =
        double(blocks) * ((threads + 31) / 32) / (prop.maxThreadsPerMultiProcessor / 32);
    const double ms = median_ms(
        [&] { matmul_dynamic(A.get(), B.get(), C.get(), kSize, kSize, kSize, side); });
    std::printf("| dynamic | %d x %d | %d | %.3f | %.3f | %.0f |\n", side, side, blocks, occupancy,
                ms, gflops(ms));
  }
  std::printf("\nchoose_block_side(%d) = %d\n", prop.maxThreadsPerBlock,
              choose_block_side(prop.maxThreadsPerBlock));
  return 0;
}
