#include "made_directives.h"

#include <cctype>
#include <string>
#include <vector>

namespace emu::rewrite {

namespace {

// The directive's name, or "" for a line marker (`# 12 "file"`) or the null directive (`#`).
std::string_view directive_name(std::string_view line) {
  std::size_t i = line.find('#') + 1;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  std::size_t end = i;
  while (end < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
    ++end;
  const std::string_view name = line.substr(i, end - i);
  return !name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) ? "" : name;
}

// `%:` (the digraph of `#`) as the first token of its line: a directive to the second step, which
// the tokenizer, reading g++ -E's output, does not take for one.
bool digraph_directive(const Source& src, std::size_t i) {
  const std::vector<Token>& t = src.tokens;
  if (!(t[i].is("%") && i + 1 < t.size() && t[i + 1].is(":") && adjacent(t[i], t[i + 1])))
    return false;
  const std::size_t line_begin = src.text.rfind('\n', t[i].begin);
  const std::size_t from = line_begin == std::string_view::npos ? 0 : line_begin + 1;
  return src.text.substr(from, t[i].begin - from).find_first_not_of(" \t\r\f\v") ==
         std::string_view::npos;
}

// `directive`: what to write instead ("#include", or "the directive").
std::string refusal(std::string_view line, const std::string& directive) {
  return "`" + std::string(line.substr(0, line.find('\n'))) +
         "` is a preprocessing directive written by a macro: the CPU backend would carry it out "
         "after its checks had read the source; write " +
         directive + " itself";
}

}  // namespace

PassResult find_made_directives(const Source& src) {
  PassResult result;
  for (std::size_t i = 0; i < src.tokens.size(); ++i) {
    const Token& t = src.tokens[i];
    if (digraph_directive(src, i)) {
      const std::size_t end = src.text.find('\n', t.begin);
      result.errors.push_back(
          {t.begin, refusal(src.text.substr(t.begin, end - t.begin), "the directive")});
      continue;
    }
    if (t.kind != TokenKind::kDirective) continue;
    const std::string_view name = directive_name(t.text);
    // #ident (and #sccs, which g++ -E writes as #ident) only puts a string in the object.
    if (name.empty() || name == "pragma" || name == "ident") continue;
    result.errors.push_back({t.begin, refusal(t.text, "#" + std::string(name))});
  }
  return result;
}

}  // namespace emu::rewrite
