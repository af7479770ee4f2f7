#include <cuda_runtime.h>

#include "device_memory_budget.h"
#include "initial_device_state.h"
#include "warm_replay_device.h"
#ifndef __LABKIT_EMU__
#include "param_layout_gpu.cuh"
#include "student_device_code.h"
#endif

namespace labkit {
namespace {

// Frees, zeroed, what the budget still counts, and restarts it at `limit`.
void free_left_allocations(std::size_t limit) {
  for (const auto& [ptr, bytes] : ProcessDeviceMemoryBudget().Restart(limit)) {
    void* left = const_cast<void*>(ptr);
    (void)cudaMemset(left, 0, bytes);
    (void)cudaFree(left);
  }
}

}  // namespace

int start_serving_device() {
  ProcessDeviceMemoryBudget().set_zero_before_free(true);
  (void)cudaFree(nullptr);  // the context, made now rather than in the first request's time
  int pageable = 0;
  if (cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0) != cudaSuccess)
    pageable = 1;  // unknown: as unsafe as the worst case
  (void)cudaGetLastError();
  return pageable;
}

void begin_served_request() { free_left_allocations(DeviceMemoryBudget::LimitFromEnvironment()); }

bool end_served_request() {
  // A kernel's fault is sticky: every later call returns it, and the context is lost.
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  free_left_allocations(ProcessDeviceMemoryBudget().limit());
#ifndef __LABKIT_EMU__
  replay::UnloadStudentDeviceCode();
  ForgetParamLayouts();
#endif
  replay::ForgetKeptAttributes();
  const bool clean = cudaDeviceSynchronize() == cudaSuccess;
  return cudaGetLastError() == cudaSuccess && clean;
}

}  // namespace labkit
