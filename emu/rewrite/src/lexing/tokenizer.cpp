#include "tokenizer.h"

namespace emu::rewrite {
namespace {

bool is_ident_start(char c) {
  // Bytes >= 0x80 are UTF-8 in identifiers (allowed by g++), never punctuation.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  TokenizeResult run() {
    bool line_start = true;  // only whitespace so far on this line: a `#` opens a directive
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '\n') {
        line_start = true;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '\\' && peek(1) == '\n') {
        pos_ += 2;  // a line continuation outside a directive: whitespace
      } else if (c == '/' && peek(1) == '/') {
        skip_line_comment();
      } else if (c == '/' && peek(1) == '*') {
        skip_block_comment();
      } else if (c == '#' && line_start) {
        directive();
      } else {
        line_start = false;
        token();
      }
    }
    return std::move(result_);
  }

 private:
  char peek(std::size_t ahead) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  void push(TokenKind kind, std::size_t begin) {
    result_.tokens.push_back({kind, begin, pos_, src_.substr(begin, pos_ - begin)});
  }

  void issue(std::size_t offset, std::string message) {
    result_.issues.push_back({offset, std::move(message)});
  }

  void skip_line_comment() {
    while (pos_ < src_.size() && src_[pos_] != '\n') {
      pos_ += (src_[pos_] == '\\' && peek(1) == '\n') ? 2 : 1;  // `// ...\` continues the comment
    }
  }

  void skip_block_comment() {
    const std::size_t close = src_.find("*/", pos_ + 2);
    if (close == std::string_view::npos) {
      issue(pos_, "unterminated comment");
      pos_ = src_.size();
    } else {
      pos_ = close + 2;
    }
  }

  // A preprocessor line, continuations included, as one token. Comments inside it are kept in the
  // token's text: nothing in a directive is ever rewritten.
  void directive() {
    const std::size_t begin = pos_;
    while (pos_ < src_.size() && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && peek(1) == '\n') {
        pos_ += 2;
      } else if (src_[pos_] == '/' && peek(1) == '*') {
        skip_block_comment();
      } else {
        ++pos_;
      }
    }
    push(TokenKind::kDirective, begin);
  }

  void token() {
    const std::size_t begin = pos_;
    const char c = src_[pos_];
    if (is_ident_start(c)) {
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
      // An encoding prefix glued to a quote makes a literal: u8"x", L'x', R"(x)", u8R"d(x)d".
      const std::string_view word = src_.substr(begin, pos_ - begin);
      const char next = peek(0);
      if (next == '"' && !word.empty() && word.back() == 'R' &&
          is_prefix(word.substr(0, word.size() - 1))) {
        raw_string(begin);
      } else if ((next == '"' || next == '\'') && is_prefix(word)) {
        quoted(begin, next);
      } else {
        push(TokenKind::kIdentifier, begin);
      }
    } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
      number(begin);
    } else if (c == '"' || c == '\'') {
      quoted(begin, c);
    } else if ((c == ':' && peek(1) == ':') || (c == '-' && peek(1) == '>')) {
      pos_ += 2;
      push(TokenKind::kPunct, begin);
    } else {
      ++pos_;
      push(TokenKind::kPunct, begin);
    }
  }

  static bool is_prefix(std::string_view w) {
    return w.empty() || w == "u8" || w == "u" || w == "U" || w == "L";
  }

  // pp-number: digits, letters, `.`, digit separators, and a sign right after an exponent letter.
  void number(std::size_t begin) {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      const char prev = pos_ > begin ? src_[pos_ - 1] : '\0';
      if ((c == '+' || c == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')) {
        ++pos_;
      } else if (c == '\'' && is_ident_char(peek(1))) {
        pos_ += 2;  // 1'000'000
      } else if (is_ident_char(c) || c == '.') {
        ++pos_;
      } else {
        break;
      }
    }
    push(TokenKind::kNumber, begin);
  }

  // "..." or '...': ends at the matching unescaped quote; a newline first means it is unterminated
  // (g++ -E output never splits a literal over lines).
  void quoted(std::size_t begin, char quote) {
    ++pos_;  // the opening quote
    while (pos_ < src_.size() && src_[pos_] != quote && src_[pos_] != '\n') {
      pos_ += (src_[pos_] == '\\' && pos_ + 1 < src_.size()) ? 2 : 1;
    }
    if (pos_ < src_.size() && src_[pos_] == quote) {
      ++pos_;
    } else {
      issue(begin, quote == '"' ? "unterminated string literal" : "unterminated character literal");
    }
    push(quote == '"' ? TokenKind::kString : TokenKind::kChar, begin);
  }

  // R"delim( ... )delim": no escapes inside, may span lines.
  void raw_string(std::size_t begin) {
    const std::size_t open = src_.find('(', pos_);
    const std::size_t line_end = src_.find('\n', pos_);
    if (open == std::string_view::npos || open > line_end || open - pos_ - 1 > 16) {
      issue(begin, "malformed raw string literal");
      pos_ = line_end == std::string_view::npos ? src_.size() : line_end;
      push(TokenKind::kString, begin);
      return;
    }
    const std::string closing = ")" + std::string(src_.substr(pos_ + 1, open - pos_ - 1)) + "\"";
    const std::size_t close = src_.find(closing, open + 1);
    if (close == std::string_view::npos) {
      issue(begin, "unterminated raw string literal");
      pos_ = src_.size();
    } else {
      pos_ = close + closing.size();
    }
    push(TokenKind::kString, begin);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  TokenizeResult result_;
};

}  // namespace

TokenizeResult tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace emu::rewrite
