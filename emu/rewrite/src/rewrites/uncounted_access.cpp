#include "uncounted_access.h"

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "brackets.h"

namespace emu::rewrite {
namespace {

bool is_asm_keyword(const Token& t) { return t.is("asm") || t.is("__asm") || t.is("__asm__"); }

// tokens[at] is an asm keyword naming a declaration's symbol: `declarator asm("name")`. After a
// function declarator's `)` (not a condition's), a variable's name, an array's `]`, or a
// qualifier (`const`, `noexcept`), and followed by string literals in parentheses only.
bool is_asm_label(const std::vector<Token>& tokens, std::size_t at) {
  if (at == 0 || at + 1 >= tokens.size() || !tokens[at + 1].is("(")) return false;
  const std::size_t close = match_forward(tokens, at + 1);
  if (close == kNoMatch || close == at + 2) return false;
  for (std::size_t i = at + 2; i < close; ++i)
    if (tokens[i].kind != TokenKind::kString) return false;
  const Token& before = tokens[at - 1];
  if (before.is("]")) return true;
  if (before.kind == TokenKind::kIdentifier)
    return !before.is("else") && !before.is("do") && !before.is("return");
  if (!before.is(")")) return false;
  const std::size_t open = match_backward(tokens, at - 1);
  if (open == kNoMatch || open == 0) return false;
  const Token& head = tokens[open - 1];
  return !(head.is("if") || head.is("while") || head.is("for") || head.is("switch"));
}

// What a builtin that reads memory is rewritten to, or nullptr: the counting copy of a copy
// builtin, or the C library's function for a compare, which then stays a call (the compile keeps
// the library's names as calls: -fno-builtin-memcmp and kin), guarded in kernels like any other
// (grader/build/device_call_guard.h). As a builtin, g++ expands a compare of a size it learns
// after instrumenting into plain, uncounted loads, whose ordering a kernel could read floats by.
const char* library_call_for(std::string_view name) {
  if (name == "__builtin_memcpy") return "__emu_device_memcpy";
  if (name == "__builtin_memmove") return "__emu_device_memmove";
  if (name == "__builtin_memset") return "__emu_device_memset";
  if (name == "__builtin_memcmp" || name == "__builtin_bcmp") return "::memcmp";
  if (name == "__builtin_strcmp") return "::strcmp";
  if (name == "__builtin_strncmp") return "::strncmp";
  return nullptr;
}

// The object-size-checked builtins (__builtin___memcpy_chk and kin), which only _FORTIFY_SOURCE's
// wrappers write, and a counted compile has no _FORTIFY_SOURCE: in such a compile they are the
// student's own, and g++ expands one of a size it learns late into plain, uncounted moves.
bool is_checked_copy_builtin(std::string_view name) {
  const std::string_view prefix = "__builtin___", suffix = "_chk";
  return name.size() > prefix.size() + suffix.size() && name.substr(0, prefix.size()) == prefix &&
         name.substr(name.size() - suffix.size()) == suffix;
}

// The atomic builtins that read memory and write it (g++'s own, and the C++ library's atomics,
// which call them): AddressSanitizer reports each as a store only, so a kernel could read operands
// by atomicAdd(p, 0) unseen. By their exact names, with or without a size suffix
// (__sync_fetch_and_add_4): the C++ library has functions of its own named __atomic_add and kin.
bool is_atomic_read_modify_write(std::string_view name) {
  static const std::regex builtin(
      "__atomic_(exchange(_n)?|compare_exchange(_n)?|(add|sub|and|xor|or|nand)_fetch|"
      "fetch_(add|sub|and|xor|or|nand)|test_and_set)(_(1|2|4|8|16))?|"
      "__sync_(fetch_and_(add|sub|or|and|xor|nand)|(add|sub|or|and|xor|nand)_and_fetch|"
      "bool_compare_and_swap|val_compare_and_swap|lock_test_and_set)(_(1|2|4|8|16))?");
  return std::regex_match(name.begin(), name.end(), builtin);
}

// tokens[open] is the `(` of a call: the index of the `,` or `)` that ends each of its first
// `count` arguments, or nothing where the text cannot be read so (a `<` after a name: a template
// argument list or a comparison, which tokens alone cannot tell apart, but in a C++ cast).
std::vector<std::size_t> argument_ends(const std::vector<Token>& tokens, std::size_t open,
                                       std::size_t count) {
  std::vector<std::size_t> ends;
  for (std::size_t j = open + 1; j < tokens.size() && ends.size() < count; ++j) {
    if (tokens[j].is(",") || tokens[j].is(")")) {
      if (j == (ends.empty() ? open + 1 : ends.back() + 1)) return {};  // an empty argument
      ends.push_back(j);
      if (tokens[j].is(")")) break;
      continue;
    }
    // A cast's type may hold commas: static_cast<std::pair<int, int>*>(p).
    const bool cast = tokens[j].is("static_cast") || tokens[j].is("reinterpret_cast") ||
                      tokens[j].is("const_cast") || tokens[j].is("dynamic_cast");
    if (cast && j + 1 < tokens.size() && tokens[j + 1].is("<")) {
      int depth = 0;
      for (++j; j < tokens.size(); ++j) {
        if (tokens[j].is("<")) ++depth;
        if (tokens[j].is(">") && --depth == 0) break;
        if (tokens[j].is(">>") && (depth -= 2) <= 0) break;
        if (tokens[j].is(";") || tokens[j].is("{") || tokens[j].is("}")) return {};
      }
      if (j == tokens.size()) return {};
      continue;
    }
    if (tokens[j].is("<")) return {};
    if (is_open(tokens[j])) {
      j = match_forward(tokens, j);
      if (j == kNoMatch) return {};
    }
  }
  return ends.size() == count ? ends : std::vector<std::size_t>{};
}

// What goes before an atomic builtin's address argument: a lambda called on the spot, which
// counts the read and hands the address back unchanged. A lambda cannot be overloaded or
// specialised by the student's code, and the count is an extern "C" function called with
// arguments of exactly its own parameter types, which no overload of the student's can beat.
constexpr const char kCountedOperand[] =
    "[](auto* __emu_p) { ::__emu_device_atomic_read(static_cast<const volatile void*>(__emu_p), "
    "sizeof(*__emu_p)); return __emu_p; }(";

// A string literal that asks for inline string operations (target attributes and pragmas).
bool names_string_op_strategy(std::string_view literal) {
  return literal.find("stringop") != std::string_view::npos ||
         literal.find("strategy") != std::string_view::npos;
}

// `#pragma GCC optimize ...` or `#pragma GCC target ("...stringop...")`.
bool is_refused_pragma(std::string_view directive) {
  static const std::regex optimize(R"(^#\s*pragma\s+GCC\s+optimize\b)");
  static const std::regex target(R"(^#\s*pragma\s+GCC\s+target\b)");
  const std::string text(directive);
  return std::regex_search(text, optimize) ||
         (std::regex_search(text, target) && names_string_op_strategy(text));
}

// The indices of attribute names: each name of an `__attribute__((a, b(x)))` list and of a
// `[[a, gnu::b(x)]]` list (the name after a namespace's `::`, and after C++17's
// `[[using gnu: b]]`).
std::vector<std::size_t> attribute_names(const std::vector<Token>& tokens) {
  std::vector<std::size_t> names;
  auto collect = [&](std::size_t first, std::size_t close) {
    int depth = 0;
    bool expect_name = true;
    for (std::size_t j = first; j < close; ++j) {
      const Token& t = tokens[j];
      if (t.is("(") || t.is("[") || t.is("{")) ++depth;
      if (t.is(")") || t.is("]") || t.is("}")) --depth;
      if (depth != 0) continue;
      if (t.is(",") || t.is(":")) {
        expect_name = true;
      } else if (expect_name && t.kind == TokenKind::kIdentifier) {
        const bool scoped = j + 2 < close && tokens[j + 1].is("::");
        names.push_back(scoped ? j + 2 : j);
        if (scoped) j += 2;
        expect_name = false;
      }
    }
  };
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if ((t.is("__attribute__") || t.is("__attribute")) && tokens[i + 1].is("(") &&
        tokens[i + 2].is("(")) {
      const std::size_t close = match_forward(tokens, i + 2);
      if (close != kNoMatch) collect(i + 3, close);
    } else if (t.is("[") && tokens[i + 1].is("[") && adjacent(t, tokens[i + 1])) {
      const std::size_t close = match_forward(tokens, i + 1);
      if (close != kNoMatch) collect(i + 2, close);
    }
  }
  return names;
}

}  // namespace

PassResult find_uncounted_accesses(const Source& src) {
  static const std::regex no_instrumentation("(__)?no_(sanitize\\w*|address_safety_analysis)(__)?");
  const std::string strategy =
      "asks g++ to copy or compare memory with inline string instructions, which the grader's "
      "CPU backend cannot count; remove it";
  PassResult out;
  bool attribute_seen = false, builtin_seen = false, asm_seen = false, strategy_seen = false,
       section_seen = false, atomic_seen = false;
  auto refuse_once = [&](bool& seen, std::size_t offset, std::string message) {
    if (seen) return;
    seen = true;
    out.errors.push_back({offset, std::move(message)});
  };
  const std::vector<Token>& tokens = src.tokens;

  for (const std::size_t i : attribute_names(tokens)) {
    const Token& t = tokens[i];
    const std::string name(t.text);
    if (std::regex_match(name, no_instrumentation))
      refuse_once(attribute_seen, t.begin,
                  "`" + name +
                      "` switches off the count of a function's memory accesses, which the "
                      "grader's CPU backend checks kernels by; remove it");
    const bool target = (name == "target" || name == "__target__") && i + 2 < tokens.size() &&
                        tokens[i + 1].is("(") && tokens[i + 2].kind == TokenKind::kString &&
                        names_string_op_strategy(tokens[i + 2].text);
    if (name == "optimize" || name == "__optimize__" || target)
      refuse_once(strategy_seen, t.begin, "the `" + name + "` attribute " + strategy);
    // A section of the student's choosing: only __constant__'s own (labkit_emu/qualifiers.h).
    const bool section = (name == "section" || name == "__section__") && i + 2 < tokens.size() &&
                         tokens[i + 1].is("(");
    if (section && !(tokens[i + 2].kind == TokenKind::kString &&
                     tokens[i + 2].text.rfind("\".emu_constant.", 0) == 0))
      refuse_once(section_seen, t.begin,
                  "the `" + name +
                      "` attribute puts data where the grader's CPU backend does not watch a "
                      "kernel's reads of it, and CUDA has no use for it; remove it");
  }

  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::kDirective && is_refused_pragma(t.text))
      refuse_once(strategy_seen, t.begin, "this pragma " + strategy);
    if (t.kind != TokenKind::kIdentifier) continue;
    const std::string name(t.text);
    if (const char* call = library_call_for(name)) {
      out.edits.push_back({t.begin, t.end, call});
    } else if (is_atomic_read_modify_write(name)) {
      // The address goes through the emulator's count of the read (kCountedOperand); a compare
      // and exchange's expected value too, which it reads uninstrumented. Where the call cannot
      // be read so (the builtin's name in parentheses, a `<` in an argument), it is refused: the
      // read would go uncounted.
      const std::size_t operands = name.find("compare_exchange") != std::string::npos ? 2 : 1;
      const std::vector<std::size_t> ends = i + 1 < tokens.size() && tokens[i + 1].is("(")
                                                ? argument_ends(tokens, i + 1, operands)
                                                : std::vector<std::size_t>{};
      if (ends.empty()) {
        refuse_once(atomic_seen, t.begin,
                    "`" + name +
                        "`: the grader's CPU backend counts the read of an atomic only in a plain "
                        "call whose arguments hold no `<` but in a C++ cast; write the call "
                        "plainly (atomicAdd(p, v))");
        continue;
      }
      std::size_t begin = i + 1;
      for (const std::size_t end : ends) {
        out.edits.push_back({tokens[begin].end, tokens[begin].end, kCountedOperand});
        out.edits.push_back({tokens[end].begin, tokens[end].begin, ")"});
        begin = end;
      }
    } else if (is_checked_copy_builtin(name)) {
      refuse_once(builtin_seen, t.begin,
                  "`" + name +
                      "`: g++ copies inline with it, where the grader's CPU backend cannot count "
                      "the memory read; no GPU has it either. Use memcpy, or plain C++");
    } else if (name.rfind("__builtin_ia32_", 0) == 0 || name == "__builtin_apply" ||
               name == "__builtin_apply_args" || name == "__builtin_return") {
      refuse_once(builtin_seen, t.begin,
                  "`" + name +
                      "`: x86 intrinsics (<immintrin.h>, <xmmintrin.h> and their kin) and "
                      "__builtin_apply read memory the grader's CPU backend cannot count, and no "
                      "GPU runs them; load with plain C++ (float4 for four floats at once)");
    } else if (is_asm_keyword(t) && !is_asm_label(tokens, i)) {
      refuse_once(asm_seen, t.begin,
                  "inline assembly: the grader's CPU backend cannot count the memory it reads and "
                  "writes, and CPU instructions do not run on a GPU; write it in C++");
    }
  }
  return out;
}

}  // namespace emu::rewrite
