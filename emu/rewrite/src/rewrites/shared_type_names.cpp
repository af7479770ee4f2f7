#include "shared_type_names.h"

#include <vector>

#include "brackets.h"
#include "source.h"
#include "tokenizer.h"

namespace emu::rewrite {

namespace {

bool is_statement_boundary(const Token& t) {
  return t.is(";") || t.is("{") || t.is("}") || t.kind == TokenKind::kDirective;
}

}  // namespace

std::string name_shared_types(std::string_view text) {
  const std::vector<Token> t = tokenize(text).tokens;
  std::vector<Edit> edits;
  int next = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!t[i].is("__shared__")) continue;
    std::size_t key = i + 1;
    while (key < t.size() && (t[key].is("const") || t[key].is("volatile"))) ++key;
    if (key + 1 >= t.size() || !(t[key].is("union") || t[key].is("struct") || t[key].is("class")))
      continue;
    const bool named = t[key + 1].kind == TokenKind::kIdentifier;
    const std::size_t open = named ? key + 2 : key + 1;
    if (open >= t.size() || !t[open].is("{")) continue;
    const std::size_t close = match_forward(t, open);
    if (close == kNoMatch || close + 1 >= t.size() || t[close + 1].is(";")) continue;
    std::size_t first = i;  // the statement's first token: `static __shared__ ...`
    while (first > 0 && !is_statement_boundary(t[first - 1])) --first;
    const std::string name =
        named ? std::string(t[key + 1].text) : "__emu_shared_type_" + std::to_string(next++);
    const std::string kind(t[key].text);
    // kind name { ... }; <the specifiers as written> kind name
    std::string moved = kind + " " + name + " ";
    moved += text.substr(t[open].begin, t[close].end - t[open].begin);
    moved += "; ";
    moved += text.substr(t[first].begin, t[key].begin - t[first].begin);
    moved += kind + " " + name;
    edits.push_back({t[first].begin, t[close].end, moved});
    i = close;
  }
  if (edits.empty()) return std::string(text);
  std::vector<Finding> unused;
  return apply_edits(text, std::move(edits), &unused);
}

}  // namespace emu::rewrite
