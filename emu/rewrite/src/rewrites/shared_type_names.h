// `__shared__ union { ... } sm;` (or struct, class, named or not): a variable of a type defined in
// its own declaration. The __shared__ rewrite (shared_rewrite.h) needs a type it can spell in
// `block_shared<T, Id>()`, so this step moves the definition in front, named where it was not:
//   union __emu_shared_type_0 { ... }; __shared__ union __emu_shared_type_0 sm;
// The definition's text stays where it was, line breaks and all, so every later line keeps its
// number. Valid CUDA that nvcc accepts; before this step the CPU backend left it unchanged and g++
// failed on it (student corpus anonymous_union_shared_tiles).
#pragma once

#include <string>
#include <string_view>

namespace emu::rewrite {

// `text` with every such declaration split in two; `text` itself where there is none.
std::string name_shared_types(std::string_view text);

}  // namespace emu::rewrite
