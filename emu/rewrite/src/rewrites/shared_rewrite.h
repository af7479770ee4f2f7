// `__shared__` declarations.
//
// Block scope, one statement per declarator, on the declaration's own line:
//   __shared__ float As[T][T], Bs[T][T];
//     -> auto& As = ::emu::block_shared<float[T][T], 0>(); auto& Bs =
//     ::emu::block_shared<float[T][T], 1>();
//   extern __shared__ __align__(16) unsigned char smem[];
//     -> unsigned char* smem = ::emu::dynamic_shared<unsigned char>();
// Namespace scope (a `__shared__` variable shared by several kernels), where a reference cannot be
// bound once for every block: the declaration is removed and a macro is defined on a line of its
// own after it, followed by a line marker so that later lines keep their numbers:
//   #define tile (::emu::block_shared<float[16][16], 2>())
// The macro is visible to the end of the translation unit, so a later local variable of the same
// name would be replaced too.
//
// Storage-class and alignment specifiers (`static`, `__align__(n)`, `alignas(n)`,
// `__attribute__((...))`) are dropped: the runtime places every shared variable at a suitably
// aligned address. cv-qualifiers stay part of the type (`volatile int&`).
#pragma once

#include "source.h"

namespace emu::rewrite {

PassResult rewrite_shared(const Source& src);

}  // namespace emu::rewrite
