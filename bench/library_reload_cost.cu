// What a warm replay process would pay per submission instead of a process of its own (issue 16):
// a student's fatbinary loaded as a CUDA library, one of its kernels launched on small buffers and
// waited for, the library unloaded, over and over in one CUDA context. Prints on one line the
// context's creation and then the mean and the worst milliseconds of one such turn.
// bench/gpu_session.sh's `library_reload` stage runs it alone and sixteen at once, beside
// context_cost.cu's figures for a process per run.
//   library_reload_cost FATBIN KERNEL_NAME TURNS
// KERNEL_NAME: a kernel of the fatbinary with the parameters (const float*, const float*,
// float*, int, int, int).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

static double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(e));
  return false;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FATBIN KERNEL_NAME TURNS\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> image((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  const int turns = std::atoi(argv[3]);
  const double start = seconds_now();
  if (!ok(cudaFree(nullptr), "context")) return 1;
  const double created = seconds_now();
  constexpr int kSide = 64;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  for (float** p : {&A, &B, &C})
    if (!ok(cudaMalloc(p, kSide * kSide * sizeof(float)), "cudaMalloc")) return 1;
  double total = 0, worst = 0;
  for (int t = 0; t < turns; ++t) {
    const double began = seconds_now();
    cudaLibrary_t library = nullptr;
    cudaKernel_t kernel = nullptr;
    if (!ok(cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            "cudaLibraryLoadData") ||
        !ok(cudaLibraryGetKernel(&kernel, library, argv[2]), "cudaLibraryGetKernel"))
      return 1;
    int side = kSide;
    void* args[] = {&A, &B, &C, &side, &side, &side};
    if (!ok(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(4, 4), dim3(16, 16), args,
                             0, nullptr),
            "cudaLaunchKernel") ||
        !ok(cudaDeviceSynchronize(), "kernel") || !ok(cudaLibraryUnload(library), "unload"))
      return 1;
    const double took = seconds_now() - began;
    total += took;
    worst = std::max(worst, took);
  }
  std::printf("%.3f %.3f %.3f\n", created - start, 1e3 * total / turns, 1e3 * worst);
  return 0;
}
