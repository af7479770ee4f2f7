#include "launch_kernel_cast.h"

#include <string>

#include "brackets.h"

namespace emu::rewrite {
namespace {

using Tokens = std::vector<Token>;

// Index just past `void *`, `const void *` or `void const *` starting at tokens[i], or kNoMatch.
std::size_t skip_void_pointer(const Tokens& t, std::size_t i) {
  if (i < t.size() && t[i].is("const")) ++i;
  if (i >= t.size() || !t[i].is("void")) return kNoMatch;
  ++i;
  if (i < t.size() && t[i].is("const")) ++i;
  if (i >= t.size() || !t[i].is("*")) return kNoMatch;
  return i + 1;
}

// Index just past a kernel's name starting at tokens[i] (`::`-qualified, with template arguments),
// or kNoMatch.
std::size_t skip_name(const Tokens& t, std::size_t i) {
  if (i < t.size() && t[i].is("::")) ++i;
  for (;;) {
    if (i >= t.size() || t[i].kind != TokenKind::kIdentifier || is_stop_keyword(t[i]))
      return kNoMatch;
    ++i;
    if (i < t.size() && t[i].is("<")) {  // template arguments: to the matching `>`
      int depth = 0;
      for (; i < t.size(); ++i) {
        if (is_open(t[i])) {
          i = match_forward(t, i);
          if (i == kNoMatch) return kNoMatch;
          continue;
        }
        if (t[i].is(";") || t[i].is("{") || t[i].is("}")) return kNoMatch;
        if (t[i].is("<")) ++depth;
        if (t[i].is(">") && --depth == 0) break;
      }
      if (i >= t.size()) return kNoMatch;
      ++i;
    }
    if (i < t.size() && t[i].is("::")) {
      ++i;
      continue;
    }
    return i;
  }
}

struct Operand {
  std::size_t name_begin = kNoMatch, name_end = kNoMatch;  // the kernel's name
  std::size_t end = kNoMatch;                              // just past the operand
};

// `name`, `&name`, or either in parentheses, starting at tokens[i].
Operand operand_at(const Tokens& t, std::size_t i) {
  if (i < t.size() && t[i].is("(")) {
    const std::size_t close = match_forward(t, i);
    if (close == kNoMatch) return {};
    Operand inner = operand_at(t, i + 1);
    if (inner.end != close) return {};
    inner.end = close + 1;
    return inner;
  }
  if (i < t.size() && t[i].is("&")) ++i;
  const std::size_t end = skip_name(t, i);
  if (end == kNoMatch) return {};
  return {i, end, end};
}

// The cast of a kernel's name that starts at tokens[i], as an operand whose span is the whole cast.
Operand cast_at(const Tokens& t, std::size_t i) {
  if (i < t.size() && t[i].is("(")) {  // (const void*) k
    const std::size_t type_end = skip_void_pointer(t, i + 1);
    if (type_end == kNoMatch || type_end >= t.size() || !t[type_end].is(")")) return {};
    return operand_at(t, type_end + 1);
  }
  if (i + 1 < t.size() && t[i].is("reinterpret_cast") && t[i + 1].is("<")) {
    const std::size_t type_end = skip_void_pointer(t, i + 2);
    if (type_end == kNoMatch || type_end >= t.size() || !t[type_end].is(">")) return {};
    if (type_end + 1 >= t.size() || !t[type_end + 1].is("(")) return {};
    const std::size_t close = match_forward(t, type_end + 1);
    Operand inner = operand_at(t, type_end + 2);
    if (close == kNoMatch || inner.end != close) return {};
    inner.end = close + 1;
    return inner;
  }
  return {};
}

}  // namespace

PassResult rewrite_launch_kernel_casts(const Source& src) {
  PassResult r;
  const Tokens& t = src.tokens;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].is("cudaLaunchKernel") || !t[i + 1].is("(")) continue;
    const Operand cast = cast_at(t, i + 2);
    // Only the whole first argument: `(const void*)k + 1` or a cast of a call is not a kernel.
    if (cast.end == kNoMatch || cast.end >= t.size() || !t[cast.end].is(",")) continue;
    const std::size_t begin = t[i + 2].begin, end = t[cast.end - 1].end;
    const std::string name(src.text.substr(t[cast.name_begin].begin,
                                           t[cast.name_end - 1].end - t[cast.name_begin].begin));
    r.edits.push_back({begin, end, keep_newlines(name, src, begin, end)});
  }
  return r;
}

}  // namespace emu::rewrite
