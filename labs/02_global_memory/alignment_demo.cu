// Lab 02, alignment: the same copy kernel over structs that differ only in their alignment, so
// that the compiled code shows what width of load the compiler can use for each. Not graded:
// load_widths.py compiles this file (or yours, with --src) and prints each kernel's global loads.
//
// A load instruction moves 4, 8 or 16 bytes only from an address that is a multiple of that width.
// The compiler knows a struct's alignment, not where a pointer will point, so it picks the widest
// load the *type's* alignment guarantees.
#include <cuda_runtime.h>

struct TwoFloats {  // 8 bytes, aligned to 4 (its members'): two 4-byte loads
  float a, b;
};
struct __align__(8) TwoFloatsAligned {  // 8 bytes, aligned to 8: one 8-byte load
  float a, b;
};
struct FourFloats {  // 16 bytes, aligned to 4: four 4-byte loads
  float a, b, c, d;
};
struct __align__(16) FourFloatsAligned {  // 16 bytes, aligned to 16: one 16-byte load
  float a, b, c, d;
};

template <class T>
__global__ void copy_kernel(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// One instance per type, so that each appears in the compiled code under its own name.
template __global__ void copy_kernel<TwoFloats>(const TwoFloats*, TwoFloats*, int);
template __global__ void copy_kernel<TwoFloatsAligned>(const TwoFloatsAligned*, TwoFloatsAligned*,
                                                       int);
template __global__ void copy_kernel<FourFloats>(const FourFloats*, FourFloats*, int);
template __global__ void copy_kernel<FourFloatsAligned>(const FourFloatsAligned*,
                                                        FourFloatsAligned*, int);
template __global__ void copy_kernel<float3>(const float3*, float3*, int);  // aligned to 4
template __global__ void copy_kernel<float4>(const float4*, float4*, int);  // aligned to 16
