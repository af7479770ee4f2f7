// The whole rewrite of one preprocessed translation unit: kernel launches, cudaLaunchKernel's
// kernel cast to a void pointer, and `__shared__` declarations (see launch_rewrite.h,
// launch_kernel_cast.h and shared_rewrite.h for the exact forms). Line markers and
// line breaks are kept, so compiler errors on the output still name the student's file and line.
// Anything not understood is left as it was and reported as a warning. Rewriting the output again
// changes nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "line_map.h"

namespace emu::rewrite {

struct Warning {
  Location where;
  std::string message;
};

struct RewriteResult {
  std::string text;
  std::vector<Warning> warnings;
  std::vector<Warning> errors;  // not valid CUDA (nvcc's wording): the compile must fail
  // Errors of a counted compile: code whose memory accesses the count cannot see.
  std::vector<Warning> refused;
};

// `counted`: the compile counts memory accesses (-fsanitize=kernel-address); code the count
// cannot see is then an error (uncounted_access.h), reported as `refused`.
RewriteResult rewrite_source(std::string_view source, bool counted = false);

// emu-rewrite's exit status (and so emu-cxx's) when the only errors are code a counted compile
// refuses: labgrade names that cause rather than "does not compile" (grader/build).
inline constexpr int kExitUncountedAccess = 65;

// `file:line: warning: message`, the form compilers and editors recognise.
std::string format_warning(const Warning& w);
// `file:line: error: message`, as a compiler says it.
std::string format_error(const Warning& w);

}  // namespace emu::rewrite

namespace emu::rewrite {

// True when rewritten text holds directives of the rewriter's own (the `#define` written for a
// namespace-scope `__shared__` variable), so that it must be compiled with preprocessing on
// (`-x c++`) rather than as already-preprocessed input (`-x c++-cpp-output`).
bool output_needs_preprocessor(std::string_view rewritten);

}  // namespace emu::rewrite
