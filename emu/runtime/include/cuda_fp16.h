// `#include <cuda_fp16.h>` on the CPU backend. Many students include it without using it; CUDA's
// own header cannot be used here (it redefines the vector types), so this is the emulator's:
// __half and __half2 with CUDA's size and alignment, the usual conversions and arithmetic done in
// float and rounded back (g++'s _Float16 rounds to nearest even, as the GPU does). Not covered:
// the packed-math and tensor-core intrinsics.
#pragma once
#include "labkit_emu/cuda_emu.h"

struct __attribute__((aligned(2))) __half {
  _Float16 value;
  __half() = default;
  __host__ __device__ __half(float f) : value(static_cast<_Float16>(f)) {}
  __host__ __device__ __half(double d) : value(static_cast<_Float16>(d)) {}
  __host__ __device__ __half(int i) : value(static_cast<_Float16>(i)) {}
  __host__ __device__ operator float() const { return static_cast<float>(value); }
};
static_assert(sizeof(__half) == 2, "__half is two bytes, as on the GPU");

struct __attribute__((aligned(4))) __half2 {
  __half x, y;
};
using half = __half;
using half2 = __half2;

__host__ __device__ inline __half __float2half(float f) { return __half(f); }
__host__ __device__ inline __half __float2half_rn(float f) { return __half(f); }
__host__ __device__ inline float __half2float(__half h) { return static_cast<float>(h); }
__host__ __device__ inline __half __int2half_rn(int i) { return __half(i); }
__host__ __device__ inline __half2 __floats2half2_rn(float a, float b) { return {a, b}; }
__host__ __device__ inline __half2 __float2half2_rn(float a) { return {a, a}; }
__host__ __device__ inline float __low2float(__half2 h) { return h.x; }
__host__ __device__ inline float __high2float(__half2 h) { return h.y; }
__host__ __device__ inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
__host__ __device__ inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
__host__ __device__ inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
__host__ __device__ inline __half __hfma(__half a, __half b, __half c) {
  return __half(float(a) * float(b) + float(c));
}
