#include "brackets.h"

#include <string_view>

namespace emu::rewrite {
namespace {

char partner(char c) {
  switch (c) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    case ')':
      return '(';
    case ']':
      return '[';
    case '}':
      return '{';
    default:
      return '\0';
  }
}

// Walks from tokens[start] in direction `step` (+1 / -1) until the bracket group closes.
std::size_t match(const std::vector<Token>& tokens, std::size_t start, int step) {
  std::vector<char> expected{partner(tokens[start].text[0])};
  for (std::size_t i = start + step; i < tokens.size(); i += step) {  // wraps past 0 to a huge i
    const Token& t = tokens[i];
    if (t.kind != TokenKind::kPunct) continue;
    const bool opens = step > 0 ? is_open(t) : is_close(t);
    const bool closes = step > 0 ? is_close(t) : is_open(t);
    if (opens) {
      expected.push_back(partner(t.text[0]));
    } else if (closes) {
      if (t.text[0] != expected.back()) return kNoMatch;
      expected.pop_back();
      if (expected.empty()) return i;
    }
  }
  return kNoMatch;
}

}  // namespace

bool is_open(const Token& t) {
  return t.kind == TokenKind::kPunct && (t.text == "(" || t.text == "[" || t.text == "{");
}
bool is_close(const Token& t) {
  return t.kind == TokenKind::kPunct && (t.text == ")" || t.text == "]" || t.text == "}");
}

std::size_t match_forward(const std::vector<Token>& tokens, std::size_t open) {
  return open < tokens.size() && is_open(tokens[open]) ? match(tokens, open, +1) : kNoMatch;
}

std::size_t match_backward(const std::vector<Token>& tokens, std::size_t close) {
  return close < tokens.size() && is_close(tokens[close]) ? match(tokens, close, -1) : kNoMatch;
}

std::size_t match_angle_backward(const std::vector<Token>& tokens, std::size_t close) {
  int depth = 0;
  for (std::size_t i = close; i < tokens.size(); --i) {
    const Token& t = tokens[i];
    if (t.is(")") || t.is("]")) {
      i = match_backward(tokens, i);
      if (i == kNoMatch) return kNoMatch;
    } else if (t.is(">")) {
      ++depth;
    } else if (t.is("<")) {
      if (--depth == 0) return i;
    } else if (t.is(";") || t.is("{") || t.is("}") || t.kind == TokenKind::kDirective) {
      return kNoMatch;
    }
  }
  return kNoMatch;
}

bool is_stop_keyword(const Token& t) {
  static constexpr std::string_view kWords[] = {
      "return",   "else",   "do",     "case",   "throw",    "co_return", "co_await", "co_yield",
      "new",      "delete", "sizeof", "typeid", "template", "typename",  "operator", "const",
      "volatile", "static", "extern", "goto",   "and",      "or",        "not"};
  if (t.kind != TokenKind::kIdentifier) return false;
  for (std::string_view w : kWords) {
    if (t.text == w) return true;
  }
  return false;
}

}  // namespace emu::rewrite
