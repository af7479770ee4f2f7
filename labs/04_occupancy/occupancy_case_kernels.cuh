// The kernels lab 04's occupancy cases ask about, by lab.yaml's `kernel` number: 0 and 1 the
// student's (occupancy_lab.cuh), 2 and 3 the kit's own, defined here. Shared by the harness and by
// drawn_cases_check.cu, which must ask about the same kernels and read them the same way. Internal
// linkage: each program that includes this header gets its own copies, and no symbol a submission
// could name or define.
#pragma once

#include <cuda_runtime.h>

#include "labkit/occupancy_runtime_view.cuh"
#include "occupancy_lab.cuh"

namespace {

// The kit's kernels, never launched: the student's kernels use 32 registers, a count at which
// neither the unit of register allocation nor the split into sub-partitions changes any answer.
// Each keeps more values live than its __maxnreg__ cap, so ptxas uses exactly the cap (checked
// before every case: a different count is the kit's fault).
template <int N>
__device__ void hold_live_values(const float* in, float* out, int n) {
  float v[N];
#pragma unroll
  for (int j = 0; j < N; ++j) v[j] = in[j];
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = v[j] * v[(j + 1) % N] + in[i + j];
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < N; ++j) sum += v[j];
  *out = sum;
}

// 37 registers: not a multiple of 8, so a warp's 1184 are allocated as 1280.
constexpr int kOddRegisters = 37;
__global__ void __maxnreg__(kOddRegisters)
    occupancy_37_registers(const float* in, float* out, int n) {
  hold_live_values<64>(in, out, n);
}
// 24 registers: the registers of 84 warps, more than the SM's 64 warp slots.
constexpr int kFewRegisters = 24;
__global__ void __maxnreg__(kFewRegisters)
    occupancy_24_registers(const float* in, float* out, int n) {
  hold_live_values<64>(in, out, n);
}

// A case's kernel and the registers it must have (0: the student's, whatever they are).
struct CaseKernel {
  const void* function;
  int pinned_registers;
};

CaseKernel case_kernel(long long number) {
  switch (number) {
    case 1:
      return {reinterpret_cast<const void*>(matmul_dynamic_kernel), 0};
    case 2:
      return {reinterpret_cast<const void*>(occupancy_37_registers), kOddRegisters};
    case 3:
      return {reinterpret_cast<const void*>(occupancy_24_registers), kFewRegisters};
    default:
      return {reinterpret_cast<const void*>(matmul_rows_kernel), 0};
  }
}

// The number case_kernel gives `function` for; -1 for none of them.
long long case_kernel_number(const void* function) {
  for (long long number = 0; number <= 3; ++number)
    if (case_kernel(number).function == function) return number;
  return -1;
}

// The handout's formula's view of a device and a kernel, as the runtime reports them (the
// harness's hints and drawn_cases_check.cu's check of the formula against the API).
using labkit::occupancy_formula::multiprocessor_of;
using labkit::occupancy_formula::resources_of;

}  // namespace
