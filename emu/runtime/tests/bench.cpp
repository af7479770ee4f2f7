// emu_bench: milliseconds for a 16x16-tiled matmul on the CPU backend (every thread a fiber, two
// barriers per tile), at 256^3 and 512^3, and what a block whose threads all return at once (the
// extra blocks of a grid sized far beyond the matrix) costs beside a working one. Not a test: run
// it by hand to see what a change costs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "config.h"
#include "kernels.h"

namespace {

double microseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

// Per block, best of five, working and idle launches alternating so that a busy machine slows
// both alike, on one OS thread so that waking workers is not what is timed. A working block's
// threads pass eight barriers; an idle block's threads make one call that returns. (On two busy
// cores, 2026-11-28/29: a ratio of 0.1 to 0.3; a block that ran its threads' work would be
// about 1.)
void idle_block_cost() {
  constexpr int kN = 64;
  constexpr unsigned kWorking = 64, kIdle = 64 * 64;
  const size_t tile = emu_test::TILE;
  std::vector<float> a(tile * kN, 1.0f), b(kN * tile, 1.0f);
  float *A, *B, *C;
  cudaMalloc(&A, a.size() * sizeof(float));
  cudaMalloc(&B, b.size() * sizeof(float));
  cudaMalloc(&C, kIdle * tile * tile * sizeof(float));
  cudaMemcpy(A, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  const emu::detail::Config saved = emu::detail::config();
  emu::detail::ConfigWrite()->threads = 1;
  double working_us = 1e30, idle_us = 1e30;
  for (int rep = 0; rep < 5; ++rep)
    for (const unsigned blocks : {kWorking, kIdle}) {
      const auto start = std::chrono::steady_clock::now();
      emu::launch(emu_test::strips_or_idle, dim3(blocks), dim3(tile, tile), 0, 0, A, B, C, kN,
                  kWorking);
      cudaDeviceSynchronize();
      const double us = microseconds_since(start);
      if (blocks == kWorking)
        working_us = std::min(working_us, us / kWorking);
      else  // the first kWorking blocks work here too
        idle_us = std::min(idle_us, (us - kWorking * working_us) / (kIdle - kWorking));
    }
  *emu::detail::ConfigWrite() = saved;
  std::printf("a working block: %.1f us; an idle block: %.2f us (ratio %.4f)\n", working_us,
              idle_us, idle_us / working_us);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

}  // namespace

int main() {
  idle_block_cost();
  for (int size : {256, 512}) {
    const size_t elements = static_cast<size_t>(size) * size;
    std::vector<float> host(elements, 1.0f);
    float *A, *B, *C;
    cudaMalloc(&A, elements * sizeof(float));
    cudaMalloc(&B, elements * sizeof(float));
    cudaMalloc(&C, elements * sizeof(float));
    cudaMemcpy(A, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(B, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice);
    const dim3 grid(size / emu_test::TILE, size / emu_test::TILE);
    const dim3 block(emu_test::TILE, emu_test::TILE);
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      emu::launch(emu_test::matmul_tiled<true, true>, grid, block, 0, 0, A, B, C, size, size, size);
      const auto t1 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::vector<float> out(elements);
    cudaMemcpy(out.data(), C, elements * sizeof(float), cudaMemcpyDeviceToHost);
    const bool ok = cudaGetLastError() == cudaSuccess && out[elements - 1] == size;
    std::printf("tiled matmul %d^3 (TILE 16): %.1f ms (best of 3)%s\n", size, best,
                ok ? "" : "  WRONG RESULT");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  return 0;
}
