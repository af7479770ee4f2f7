// Preprocessing directives that g++ -E did not carry out, refused in counted compiles.
//
// emu-cxx compiles a .cu in three steps: g++ -E, the rewrite, and the compile of the rewritten
// text, which preprocesses it a second time when the rewrite wrote a directive of its own (a
// `#define` for a namespace-scope `__shared__` variable; rewrite.h, output_needs_preprocessor).
// g++ -E leaves only line markers and #pragma lines, but a macro can write a line that merely
// looks like a directive to the first step (`#define HASH #` then `HASH include <x.h>`). The
// second step would carry it out: a header included there escapes every check made on the first
// step's text and header list (the refused headers of grader/build/policies/header_policy.h, the
// refusals of uncounted_access.h). Any such line is refused: line markers, #pragma, #ident (which
// g++ -E keeps, and which only names the file in the object) and the null directive pass.
#pragma once

#include "source.h"

namespace emu::rewrite {

PassResult find_made_directives(const Source& src);

}  // namespace emu::rewrite
