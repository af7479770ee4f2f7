// Storage for the device builtins declared in labkit_emu/device_functions.h.
#include <chrono>
#include <ctime>

#include "labkit_emu/device_functions.h"
#include "scheduler.h"  // __emu_kernel_running

__thread uint3 threadIdx = {0, 0, 0};
__thread uint3 blockIdx = {0, 0, 0};
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace {
// The clock kernel code reads: 1000 "cycles" more at each reading, on each OS thread. Elapsed
// times come out positive and ordered, and say nothing about how fast the run goes.
long long kernel_clock() {
  static __thread long long cycles = 0;
  return cycles += 1000;
}
}  // namespace

long long clock64() {
  if (__emu_kernel_running) return kernel_clock();
  // Host code: nanoseconds of a monotonic clock (callers only ever subtract two readings).
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

extern "C" clock_t __emu_device_clock() {
  return __emu_kernel_running ? static_cast<clock_t>(kernel_clock()) : std::clock();
}
