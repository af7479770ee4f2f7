// Maps byte offsets in preprocessed text back to the student's file and line, using the line
// markers (`# 12 "matmul.cu" 2`) that `g++ -E` writes. Used for warnings, and to write a fresh line
// marker after text the rewriter had to put on lines of its own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer.h"

namespace emu::rewrite {

struct Location {
  std::string file;  // as written in the marker (still escaped); "" before the first marker
  long line = 1;
};

class LineMap {
 public:
  LineMap(std::string_view source, const std::vector<Token>& tokens);

  // The presumed location of the character at `offset`.
  Location at(std::size_t offset) const;

  // Number of newlines in [begin, end).
  std::size_t newlines_between(std::size_t begin, std::size_t end) const;

 private:
  struct Marker {
    std::size_t line_start;  // offset of the first character of the line the marker names
    long line;
    std::string file;
  };
  std::size_t line_index(std::size_t offset) const;  // newlines before `offset`

  std::vector<std::size_t> newlines_;  // offsets of every '\n'
  std::vector<Marker> markers_;
};

// Parses `# 12 "file" flags` or `#line 12 "file"`; false for any other directive.
bool parse_line_marker(std::string_view directive, long* line, std::string* file);

}  // namespace emu::rewrite
