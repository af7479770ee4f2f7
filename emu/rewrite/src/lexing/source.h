// What the rewrite passes share: the text, its tokens and line map, and the edits and findings a
// pass produces. Passes never modify text themselves; they return edits, applied once at the end,
// so that one pass cannot confuse another's offsets and nested rewrites (a launch inside a launch's
// arguments) need no special case.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "line_map.h"
#include "tokenizer.h"

namespace emu::rewrite {

struct Source {
  std::string_view text;
  const std::vector<Token>& tokens;
  const LineMap& lines;
};

// Replace text[begin, end) with `text`; begin == end is an insertion.
struct Edit {
  std::size_t begin;
  std::size_t end;
  std::string text;
};

// Something left unchanged because the rewriter did not understand it.
struct Finding {
  std::size_t offset;
  std::string message;
};

struct PassResult {
  std::vector<Edit> edits;
  std::vector<Finding> findings;
  // Code that is not valid CUDA, said in nvcc's words: the compile must fail with this message
  // rather than with g++'s words about the emulator's internals.
  std::vector<Finding> errors;
};

// Applies non-overlapping edits (in any order). An edit overlapping an earlier one is not applied
// and is reported in `findings`, which may be null.
std::string apply_edits(std::string_view text, std::vector<Edit> edits,
                        std::vector<Finding>* findings);

// `replacement` followed by as many newlines as text[begin, end) held, so that replacing a
// construct that spanned lines keeps every later line where it was.
std::string keep_newlines(std::string replacement, const Source& src, std::size_t begin,
                          std::size_t end);

}  // namespace emu::rewrite
