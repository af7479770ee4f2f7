// `#include <cuda_bf16.h>` on the CPU backend (see cuda_fp16.h for why the emulator has its own):
// __nv_bfloat16 with CUDA's size, conversions rounding to nearest even as the GPU does, arithmetic
// done in float and rounded back.
#pragma once
#include <cstdint>
#include <cstring>

#include "cuda_fp16.h"

struct __attribute__((aligned(2))) __nv_bfloat16 {
  std::uint16_t bits;
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN stays a (quiet) NaN
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
      bits = static_cast<std::uint16_t>(u >> 16);
    }
  }
  __host__ __device__ operator float() const {
    const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
static_assert(sizeof(__nv_bfloat16) == 2, "__nv_bfloat16 is two bytes, as on the GPU");

struct __attribute__((aligned(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

__host__ __device__ inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
__host__ __device__ inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }
