#include "scope.h"

namespace emu::rewrite {
namespace {

// Does the `{` at tokens[brace] open a namespace or `extern "C"` block? Looks at the tokens since
// the previous statement boundary: `namespace a::b {`, `inline namespace v1 {`, `extern "C" {`.
bool opens_namespace(const std::vector<Token>& tokens, std::size_t brace) {
  std::size_t head = brace;
  while (head > 0) {
    const Token& t = tokens[head - 1];
    if (t.is(";") || t.is("{") || t.is("}") || t.kind == TokenKind::kDirective) break;
    --head;
  }
  for (std::size_t i = head; i < brace; ++i) {
    if (tokens[i].is("namespace")) return true;
  }
  return brace - head == 2 && tokens[head].is("extern") &&
         tokens[head + 1].kind == TokenKind::kString;
}

}  // namespace

std::vector<bool> namespace_scope_flags(const std::vector<Token>& tokens) {
  std::vector<bool> flags(tokens.size());
  std::vector<bool> stack;  // per open brace: does it open a namespace?
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.is("}") && !stack.empty()) stack.pop_back();
    flags[i] = stack.empty() || stack.back();
    if (t.is("{")) stack.push_back(opens_namespace(tokens, i));
  }
  return flags;
}

}  // namespace emu::rewrite
