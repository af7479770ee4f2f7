#include "source.h"

#include <algorithm>

namespace emu::rewrite {

std::string apply_edits(std::string_view text, std::vector<Edit> edits,
                        std::vector<Finding>* findings) {
  // Insertions sort before a replacement starting at the same offset, so both apply.
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t pos = 0;
  for (const Edit& e : edits) {
    if (e.begin < pos || e.end > text.size()) {
      if (findings) findings->push_back({e.begin, "overlapping rewrites; this one was skipped"});
      continue;
    }
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.text);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

std::string keep_newlines(std::string replacement, const Source& src, std::size_t begin,
                          std::size_t end) {
  replacement.append(src.lines.newlines_between(begin, end), '\n');
  return replacement;
}

}  // namespace emu::rewrite
