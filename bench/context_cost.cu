// What one GPU process's CUDA context costs: its creation (cudaFree(0)), one empty launch, and
// cudaDeviceReset, in seconds on one line. bench/gpu_session.sh's `contexts` stage starts it alone
// and sixteen at once, as a batch's jobs start their harness processes, under the settings it
// compares (the work queues a context gets: CUDA_DEVICE_MAX_CONNECTIONS).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

__global__ void empty_kernel() {}

static double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int main() {
  const double start = seconds_now();
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  const double created = seconds_now();
  empty_kernel<<<1, 1>>>();
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  const double launched = seconds_now();
  cudaDeviceReset();
  const double reset = seconds_now();
  std::printf("%.3f %.3f %.3f\n", created - start, launched - created, reset - launched);
  return 0;
}
