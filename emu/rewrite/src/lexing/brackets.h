// Bracket matching over tokens. Directives (e.g. a `#pragma unroll` line inside a lambda body) are
// stepped over. Every function returns kNoMatch rather than guessing when the brackets do not add
// up.
#pragma once

#include <cstddef>
#include <vector>

#include "tokenizer.h"

namespace emu::rewrite {

inline constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);

bool is_open(const Token& t);   // ( [ {
bool is_close(const Token& t);  // ) ] }

// Index of the bracket closing the one opened at tokens[open].
std::size_t match_forward(const std::vector<Token>& tokens, std::size_t open);

// Index of the bracket opening the one closed at tokens[close].
std::size_t match_backward(const std::vector<Token>& tokens, std::size_t close);

// tokens[close] is the `>` ending a template argument list: index of its `<`. Parenthesised and
// bracketed groups are skipped whole, so `k<(N > 2)>` works; a `;` or brace means no match.
std::size_t match_angle_backward(const std::vector<Token>& tokens, std::size_t close);

// Text of a few keywords that can stand before an expression but are never part of a name
// (`return k<<<...`): the launch and declaration scanners stop at them.
bool is_stop_keyword(const Token& t);

}  // namespace emu::rewrite
