// Storage for the device builtins declared in labkit_emu/device_functions.h.
#include <chrono>

#include "labkit_emu/device_functions.h"

__thread uint3 threadIdx = {0, 0, 0};
__thread uint3 blockIdx = {0, 0, 0};
__thread dim3 blockDim;
__thread dim3 gridDim;

long long clock64() {
  // Nanoseconds of a monotonic clock: kernels only ever subtract two readings.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
