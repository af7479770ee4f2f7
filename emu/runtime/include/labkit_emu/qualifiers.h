// CUDA's declaration qualifiers, mapped onto plain C++: on the CPU every function is a host
// function and every __device__/__constant__ variable is an ordinary global.
#pragma once

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
// Empty rather than __attribute__((noinline)): libstdc++ itself writes
// __attribute__((__noinline__)), which a function-like expansion would break; inlining is only a
// hint anyway.
#define __noinline__
#define __launch_bounds__(...)
// A register cap means nothing on the CPU; kit code that relies on the count a GPU gives tells the
// emulator with emu::declare_registers (runtime_api.h).
#define __maxnreg__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __grid_constant__
