// cudaLaunchKernel given its kernel as a cast to a void pointer, the way CUDA's own samples write
// it: `cudaLaunchKernel((const void*)k, grid, block, args, ...)`. On a GPU the runtime knows each
// kernel's parameters by its address; the CPU backend knows them only from the kernel's type,
// which the cast throws away (labkit_emu/launch.h launches the typed form and refuses the void
// pointer by name). Where the cast's operand is a kernel's name, the cast is dropped:
//
//   cudaLaunchKernel((const void*)ns::k<T>, ...)   ->  cudaLaunchKernel(ns::k<T>, ...)
//
// Accepted casts: `(void*)`, `(const void*)`, `(void const*)`, `reinterpret_cast<...>(...)` of
// those, each of a name or `&name` (qualified, with template arguments, parenthesised). A pointer
// held in a variable is left as it is: its kernel is not known at compile time, and the compile
// stops with the refusal's message.
#pragma once

#include "source.h"

namespace emu::rewrite {

PassResult rewrite_launch_kernel_casts(const Source& src);

}  // namespace emu::rewrite
