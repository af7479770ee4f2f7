// For the handout's table (handouts/01_first_kernels.md): lab 01's reference solution on a real
// GPU: the host version on one CPU core at 1024^3, the one-block kernel at 32^3 (the largest it
// can do), the rows kernel at 2048^3. Random inputs in [-1, 1]. Prints a Markdown table.
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "first_kernels_lab.cuh"
#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"
#include "labkit/median_time.cuh"

namespace {

std::vector<float> random_matrix(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(gen);
  return v;
}

void row(const char* kernel, int size, double ms) {
  std::printf("| %s | %d x %d x %d | %.3f | %.1f |\n", kernel, size, size, size, ms,
              2.0 * size * size * size / (ms * 1e6));
}

void measure_device(const char* name, int size, void (*fn)(const float*, const float*, float*,
                                                           int, int, int)) {
  const std::size_t count = std::size_t(size) * size;
  const auto a = random_matrix(count, 1), b = random_matrix(count, 2);
  labkit::DeviceBuffer<float> A(count), B(count), C(count);
  LABKIT_CUDA_CHECK(cudaMemcpy(A.get(), a.data(), A.bytes(), cudaMemcpyHostToDevice));
  LABKIT_CUDA_CHECK(cudaMemcpy(B.get(), b.data(), B.bytes(), cudaMemcpyHostToDevice));
  row(name, size, labkit::median_launch_ms([&] { fn(A.get(), B.get(), C.get(), size, size, size); }));
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n\n| kernel | size (m x n x k) | time (ms) | GFLOP/s |\n"
              "| --- | --- | --- | --- |\n", prop.name, prop.multiProcessorCount);
  {
    const int size = 1024;
    const std::size_t count = std::size_t(size) * size;
    const auto a = random_matrix(count, 1), b = random_matrix(count, 2);
    std::vector<float> c(count);
    const auto t0 = std::chrono::steady_clock::now();
    matmul_host(a.data(), b.data(), c.data(), size, size, size);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    row("matmul_host (one CPU core, one run)", size, ms);
  }
  measure_device("matmul_one_block", 32, matmul_one_block);
  measure_device("matmul_rows", 2048, matmul_rows);
  return 0;
}
