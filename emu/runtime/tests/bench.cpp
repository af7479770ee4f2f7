// emu_bench: milliseconds for a 16x16-tiled matmul on the CPU backend (every thread a fiber, two
// barriers per tile), at 256^3 and 512^3. Not a test: run it by hand to see what a change costs.
#include <chrono>
#include <cstdio>
#include <vector>

#include "kernels.h"

int main() {
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
