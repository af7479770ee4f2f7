// CUDA's declaration qualifiers, mapped onto plain C++: on the CPU every function is a host
// function and every __device__/__constant__ variable is an ordinary global (a __constant__ one in
// a section that names it, below).
#pragma once

#define __global__
#define __device__
#define __host__
// A __constant__ variable goes into a section of its own, `.emu_constant.<n>`, so that labgrade
// can tell it from a __device__ one in the object (grader/build/student_image.h): a GPU's counters
// do not count constant loads as global memory, and the CPU backend counts every other variable so.
// One section per declaration: a const and a non-const variable in one named section would be a
// "section type conflict" for g++. (A definition after an `extern` declaration keeps the
// declaration's section; g++ only warns.)
#define __constant__ __attribute__((section(".emu_constant." __EMU_CONSTANT_STR(__COUNTER__))))
#define __EMU_CONSTANT_STR(n) __EMU_CONSTANT_STR2(n)
#define __EMU_CONSTANT_STR2(n) #n
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
