// Tokeniser for preprocessed C++ (the output of `g++ -E`).
//
// The rewriter only needs to find a handful of patterns (`<<<`, `>>>`, `__shared__`) and match
// brackets, so this is deliberately not a full C++ lexer: every punctuator is one character except
// `::` and `->`, which the rewriter looks for as units. What it must get right is what to *skip*:
// comments, string and character literals (raw strings included) and preprocessor lines, so that
// nothing inside them is ever rewritten.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace emu::rewrite {

enum class TokenKind {
  kIdentifier,  // also keywords: the rewriter checks the few it cares about by text
  kNumber,      // a pp-number: 1, 0x1f, 1.5e-3f, 1'000
  kString,      // "..." with any prefix, raw strings included
  kChar,        // '...' with any prefix
  kPunct,       // one character, or `::` / `->`
  kDirective,   // a whole `#...` line: line markers, #pragma, #define
};

struct Token {
  TokenKind kind;
  std::size_t begin;  // byte offsets into the source: [begin, end)
  std::size_t end;
  std::string_view text;

  bool is(std::string_view s) const { return kind != TokenKind::kString && text == s; }
};

// A problem found while tokenising (an unterminated literal or comment), at a byte offset.
struct TokenizeIssue {
  std::size_t offset;
  std::string message;
};

struct TokenizeResult {
  std::vector<Token> tokens;  // significant tokens only; whitespace and comments are dropped
  std::vector<TokenizeIssue> issues;
};

// `source` must outlive the tokens, which point into it.
TokenizeResult tokenize(std::string_view source);

// True when token `b` starts exactly where `a` ends (`<<<` is three adjacent `<` tokens).
inline bool adjacent(const Token& a, const Token& b) { return a.end == b.begin; }

}  // namespace emu::rewrite
