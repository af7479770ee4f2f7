// What a counted compile's rewrite refuses in a source, for the tests of its refusals.
#pragma once

#include <string>
#include <string_view>

#include "rewrite.h"

namespace emu::rewrite {

// One `file:line: error: ...` line per refusal.
inline std::string refused(std::string_view src) {
  std::string out;
  for (const Warning& e : rewrite_source(src, /*counted=*/true).refused)
    out += format_error(e) + "\n";
  return out;
}

}  // namespace emu::rewrite
