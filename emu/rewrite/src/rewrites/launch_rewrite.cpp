#include "launch_rewrite.h"

#include <string>

#include "brackets.h"

namespace emu::rewrite {
namespace {

using Tokens = std::vector<Token>;

bool is_name(const Token& t) { return t.kind == TokenKind::kIdentifier && !is_stop_keyword(t); }

// True when text[begin, end) is only white space, and holds no line break unless `newline_ok`.
bool only_space(std::string_view text, std::size_t begin, std::size_t end, bool newline_ok) {
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r' ? !newline_ok : (c != ' ' && c != '\t' && c != '\v' && c != '\f'))
      return false;
  }
  return true;
}

// `<<<` or `>>>` starting at tokens[i], spelt as nvcc accepts it. Some editors' auto-format writes
// `k << < g, b >> > (a)`, which nvcc compiles: nvcc takes `<<` then `<` with blanks between (not a
// line break), and `>>` then `>` with any white space between; the first two must touch (`< <<`
// and `> >>` are errors there). Comments are blanks here already: the input is preprocessed.
bool is_triple(const Source& src, std::size_t i, char c) {
  const Tokens& t = src.tokens;
  const char s[2] = {c, '\0'};
  return i + 2 < t.size() && t[i].is(s) && t[i + 1].is(s) && t[i + 2].is(s) &&
         adjacent(t[i], t[i + 1]) &&
         only_space(src.text, t[i + 1].end, t[i + 2].begin, /*newline_ok=*/c == '>');
}

// First token of the kernel expression that ends at tokens[last]: a (qualified, templated) name,
// a parenthesised expression, or a postfix chain of those (`obj.k`, `get(x)`, `table[i]`).
std::size_t callee_begin(const Tokens& t, std::size_t last) {
  std::size_t i = last;
  for (;;) {
    if (t[i].is(")") || t[i].is("]")) {
      i = match_backward(t, i);
      if (i == kNoMatch) return kNoMatch;
      // `get(x)` or `table[i]`: the group is a call or subscript of what precedes it. After `)`
      // (as in `if (c) (k)<<<`) it is not, so that case stops here.
      if (i > 0 && (is_name(t[i - 1]) || t[i - 1].is("]") || t[i - 1].is(">"))) {
        i = i - 1;
        continue;
      }
    } else if (t[i].is(">")) {
      i = match_angle_backward(t, i);  // k<T, 32>: the template name precedes the `<`
      if (i == kNoMatch || i == 0 || !is_name(t[i - 1])) return kNoMatch;
      i = i - 1;
    } else if (!is_name(t[i])) {
      return kNoMatch;
    }
    // tokens[i] starts one component; a qualifier or member access may continue it leftwards.
    std::size_t p = i;
    if (p >= 2 && t[p - 1].is("template") &&
        (t[p - 2].is("::") || t[p - 2].is(".") || t[p - 2].is("->"))) {
      --p;  // ns::template k<3>, obj.template k<3>
    }
    if (p == 0) return i;
    const Token& sep = t[p - 1];
    if (!sep.is("::") && !sep.is(".") && !sep.is("->")) return i;
    if (p >= 2 && (is_name(t[p - 2]) || t[p - 2].is(">") ||
                   (!sep.is("::") && (t[p - 2].is(")") || t[p - 2].is("]"))))) {
      i = p - 2;
      continue;
    }
    return sep.is("::") ? p - 1 : kNoMatch;  // a leading `::` belongs to the name
  }
}

struct Config {
  std::size_t close = kNoMatch;  // index of the first `>` of `>>>`
  int count = 0;                 // number of comma-separated configuration arguments
};

// Scans the configuration after `<<<` (starting at tokens[first]) to the `>>>` that is followed by
// `(`. Commas are counted outside brackets only: a template-id with a comma in the configuration
// must be parenthesised.
Config scan_config(const Source& src, std::size_t first) {
  const Tokens& t = src.tokens;
  Config c;
  bool empty = true;
  for (std::size_t i = first; i < t.size(); ++i) {
    if (is_triple(src, i, '>') && i + 3 < t.size() && t[i + 3].is("(")) {
      c.close = i;
      c.count += empty ? 0 : 1;
      return c;
    }
    if (is_open(t[i])) {
      i = match_forward(t, i);
      if (i == kNoMatch) return {};
    } else if (t[i].is(",")) {
      ++c.count;
    } else if (t[i].is(";") || is_close(t[i])) {
      return {};
    }
    empty = false;
  }
  return {};
}

}  // namespace

PassResult rewrite_launches(const Source& src) {
  PassResult r;
  const Tokens& t = src.tokens;
  for (std::size_t i = 1; i < t.size(); ++i) {
    // `operator<<<T>` (a friend template's name) has the same three characters.
    if (!is_triple(src, i, '<') || t[i - 1].is("operator")) continue;
    const std::size_t name = callee_begin(t, i - 1);
    if (name == kNoMatch) {
      r.findings.push_back(
          {t[i].begin, "cannot tell which kernel this '<<<' launches; left unchanged"});
      i += 2;
      continue;
    }
    const Config cfg = scan_config(src, i + 3);
    if (cfg.close == kNoMatch || cfg.count < 2 || cfg.count > 4) {
      r.findings.push_back({t[i].begin,
                            "expected '<<<grid, block[, shared_bytes[, stream]]>>>(arguments)'; "
                            "left unchanged"});
      i += 2;
      continue;
    }
    const std::size_t open = cfg.close + 3;
    const std::size_t close = match_forward(t, open);
    if (close == kNoMatch) {
      r.findings.push_back({t[i].begin, "unbalanced parentheses after '>>>'; left unchanged"});
      i += 2;
      continue;
    }
    static const char* const kDefaults[] = {", 0, 0", ", 0", ""};  // for 2, 3, 4 arguments
    std::string tail = kDefaults[cfg.count - 2];
    if (close != open + 1) tail += ", ";  // there are kernel arguments to follow
    r.edits.push_back({t[name].begin, t[name].begin, "::emu::launch("});
    r.edits.push_back({t[i].begin, t[i + 2].end, ", "});
    r.edits.push_back({t[cfg.close].begin, t[open].end,
                       keep_newlines(tail, src, t[cfg.close].begin, t[open].end)});
    i += 2;  // the configuration and arguments may hold launches of their own: keep scanning
  }
  return r;
}

}  // namespace emu::rewrite
