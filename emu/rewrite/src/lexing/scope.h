// Which tokens sit at namespace scope (file scope, inside `namespace x { }` or `extern "C" { }`)
// rather than inside a function, class or initializer. A `__shared__` variable at namespace scope
// cannot become a local reference, so the shared-memory pass treats it differently.
#pragma once

#include <vector>

#include "tokenizer.h"

namespace emu::rewrite {

// One flag per token: true where the innermost enclosing `{` (if any) opens a namespace or a
// linkage specification.
std::vector<bool> namespace_scope_flags(const std::vector<Token>& tokens);

}  // namespace emu::rewrite
