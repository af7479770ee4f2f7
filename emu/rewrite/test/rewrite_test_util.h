// Helpers for the rewrite tests: run the whole rewrite on a snippet.
#pragma once

#include <string>
#include <string_view>

#include "rewrite.h"

namespace emu::rewrite::testing {

inline std::string rewritten(std::string_view src) { return rewrite_source(src).text; }

inline std::string warnings_of(std::string_view src) {
  std::string out;
  for (const Warning& w : rewrite_source(src).warnings) out += format_warning(w) + "\n";
  return out;
}

inline std::string errors_of(std::string_view src) {
  std::string out;
  for (const Warning& e : rewrite_source(src).errors) out += format_error(e) + "\n";
  return out;
}

}  // namespace emu::rewrite::testing
