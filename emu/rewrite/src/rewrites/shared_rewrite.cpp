#include "shared_rewrite.h"

#include <string>

#include "brackets.h"
#include "scope.h"

namespace emu::rewrite {
namespace {

using Tokens = std::vector<Token>;
using Indices = std::vector<std::size_t>;  // token indices, in source order

// nvcc's words for a __shared__ array with a run-time size (tried on nvcc 13).
constexpr const char* kVariableLengthArray =
    "a variable length array cannot have static storage duration";

bool is_word(const Token& t) { return t.kind != TokenKind::kPunct; }

bool one_of(const Token& t, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (t.is(w)) return true;
  }
  return false;
}

bool is_cv(const Token& t) {
  return one_of(t, {"const", "volatile", "__restrict__", "__restrict"});
}

// Built-in type words can never be the declared name (`__shared__ int;` declares nothing).
bool is_type_word(const Token& t) {
  return is_cv(t) ||
         one_of(t, {"void",     "bool",     "char",     "short", "int",     "long",    "float",
                    "double",   "signed",   "unsigned", "auto",  "wchar_t", "char8_t", "char16_t",
                    "char32_t", "typename", "struct",   "class", "union",   "enum"});
}

// Words after which an identifier is an expression's operand, not a declared name.
bool is_expression_word(const Token& t) {
  return one_of(t, {"return",  "case",     "sizeof", "throw",  "else",      "do",       "typeid",
                    "alignof", "decltype", "new",    "delete", "co_return", "co_yield", "co_await",
                    "not",     "and",      "or",     "xor",    "bitand",    "bitor",    "compl"});
}

// Whether `name` names something else too somewhere in the file, outside the declaration at
// [first, last]: a member (`.name`, `->name`, `X::name`) or a declaration of its own (`size_t
// name`, `float* name`, `const int& name`), as a host variable holding a launch's byte count
// often is. A macro of the name would replace those as well; C++ scoping does not.
bool named_elsewhere(const Tokens& t, std::string_view name, std::size_t first, std::size_t last) {
  const auto declares = [&](std::size_t before) {
    const Token& p = t[before];
    if (p.is(".") || p.is("->") || p.is("::")) return true;
    if (p.kind == TokenKind::kIdentifier) return !is_expression_word(p);
    if ((p.is("*") || p.is("&") || p.is("&&")) && before > 0) {
      const Token& q = t[before - 1];
      return q.is(">") || (q.kind == TokenKind::kIdentifier && !is_expression_word(q));
    }
    return false;
  };
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (i >= first && i <= last) continue;
    if (t[i].kind == TokenKind::kIdentifier && t[i].text == name && declares(i - 1)) return true;
  }
  return false;
}

// Joins tokens back into text. Between tokens that were neighbours in the token stream the
// original spacing is kept (collapsed to one space); where tokens were taken out in between (the
// declared name, a specifier) a space is added only where two words would otherwise merge.
std::string spell(const Tokens& t, const Indices& idx) {
  std::string out;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const Token& cur = t[idx[k]];
    if (k > 0) {
      const Token& prev = t[idx[k - 1]];
      const bool neighbours = idx[k] == idx[k - 1] + 1;
      if (neighbours ? !adjacent(prev, cur) : (is_word(prev) && is_word(cur))) out += ' ';
    }
    out += cur.text;
  }
  return out;
}

// The tokens of one declaration statement, minus the specifiers the rewrite drops.
struct Declaration {
  std::size_t first = 0;  // token indices of the statement, `;` included
  std::size_t semicolon = 0;
  bool is_extern = false;
  Indices rest;  // type and declarators
};

bool is_boundary(const Token& t) {
  return t.is(";") || t.is("{") || t.is("}") || t.is(":") || t.kind == TokenKind::kDirective;
}

// Finds the statement around tokens[at] and strips its specifiers. Returns an error message, or ""
// on success.
std::string find_declaration(const Tokens& t, std::size_t at, Declaration* d) {
  std::size_t b = at;
  while (b > 0 && !is_boundary(t[b - 1])) {
    if (t[b - 1].is(")") || t[b - 1].is("]")) {
      b = match_backward(t, b - 1);  // __align__(16) __shared__, [[attr]] __shared__
      if (b == kNoMatch) return "unbalanced brackets before '__shared__'";
    } else {
      --b;
    }
  }
  std::size_t e = at + 1;
  for (; e < t.size() && !t[e].is(";"); ++e) {
    if (t[e].is("{") || is_close(t[e]) || t[e].kind == TokenKind::kDirective) {
      return "expected a declaration ending in ';' after '__shared__'";
    }
    if (is_open(t[e]) && (e = match_forward(t, e)) == kNoMatch) {
      return "unbalanced brackets after '__shared__'";
    }
  }
  if (e >= t.size()) return "expected ';' after the '__shared__' declaration";
  d->first = b;
  d->semicolon = e;
  for (std::size_t i = b; i < e; ++i) {
    const Token& tok = t[i];
    const bool attribute =
        one_of(tok, {"__align__", "alignas", "__attribute__", "__declspec"}) && t[i + 1].is("(");
    if (attribute || (tok.is("[") && t[i + 1].is("["))) {  // __align__(16), [[attribute]]
      // The group was not checked when scanning backwards: it must close inside the statement.
      const std::size_t close = match_forward(t, attribute ? i + 1 : i);
      if (close == kNoMatch || close >= e) return "unbalanced brackets in the declaration";
      i = close;
    } else if (tok.is("extern")) {
      d->is_extern = true;
    } else if (!one_of(tok, {"__shared__", "static", "__device__", "__managed__", "inline"})) {
      d->rest.push_back(i);
    }
  }
  return "";
}

// Splits type-and-declarators at top-level commas. Angle brackets count as nesting after a name
// (`Foo<int, 3> x`); inside ( ) and [ ] they are left alone, since `<` there may be a comparison.
std::vector<Indices> split_declarators(const Tokens& t, const Indices& rest,
                                       std::vector<std::vector<int>>* depths) {
  std::vector<Indices> parts(1);
  depths->assign(1, {});
  int brackets = 0, angles = 0;
  for (std::size_t k = 0; k < rest.size(); ++k) {
    const Token& tok = t[rest[k]];
    if (is_close(tok)) --brackets;
    if (brackets == 0 && tok.is(">") && angles > 0) --angles;
    if (tok.is(",") && brackets == 0 && angles == 0) {
      parts.emplace_back();
      depths->emplace_back();
      continue;
    }
    parts.back().push_back(rest[k]);
    depths->back().push_back(brackets + angles);
    if (is_open(tok)) ++brackets;
    if (brackets == 0 && tok.is("<") && k > 0 && t[rest[k - 1]].kind == TokenKind::kIdentifier) {
      ++angles;
    }
  }
  return parts;
}

// Position in `part` of the declared name: the last top-level identifier.
std::size_t name_position(const Tokens& t, const Indices& part, const std::vector<int>& depth) {
  for (std::size_t k = part.size(); k-- > 0;) {
    const Token& tok = t[part[k]];
    if (depth[k] != 0 || tok.kind != TokenKind::kIdentifier) continue;
    return is_type_word(tok) || tok.is("__shared__") ? kNoMatch : k;
  }
  return kNoMatch;
}

struct Declarator {
  std::string name;
  std::string type;      // the variable's full type: `float[16][16]`, `int`, `float*`
  bool unsized = false;  // exactly `name[]`, as `extern __shared__` requires
};

// The names of the parameters of the function whose body holds tokens[at], or none at namespace
// scope. Parameters are never constant expressions, whatever their type says.
std::vector<std::string_view> enclosing_parameters(const Tokens& t,
                                                   const std::vector<bool>& ns_scope,
                                                   std::size_t at) {
  // Going outwards, the first enclosing `{` that itself sits at namespace scope opens the body
  // of the function (a member function's body is not found: its class is no namespace).
  std::size_t body = kNoMatch;
  int depth = 0;
  for (std::size_t i = at; i-- > 0 && body == kNoMatch;) {
    if (t[i].is("}")) ++depth;
    if (!t[i].is("{")) continue;
    if (depth > 0) {
      --depth;
    } else if (ns_scope[i]) {
      body = i;
    }
  }
  std::vector<std::string_view> names;
  if (body == kNoMatch || body == 0 || !t[body - 1].is(")")) return names;
  const std::size_t open = match_backward(t, body - 1);
  if (open == kNoMatch) return names;
  int nesting = 0;
  std::string_view last;
  bool in_default = false;
  for (std::size_t i = open + 1; i < body; ++i) {
    const bool end = i == body - 1;
    if (!end && is_open(t[i])) ++nesting;
    if (!end && is_close(t[i])) --nesting;
    if (nesting == 0 && (t[i].is(",") || end)) {
      if (!last.empty()) names.push_back(last);
      last = {};
      in_default = false;
    } else if (nesting == 0 && t[i].is("=")) {
      in_default = true;
    } else if (nesting == 0 && !in_default && t[i].kind == TokenKind::kIdentifier &&
               !is_type_word(t[i])) {
      last = t[i].text;
    }
  }
  return names;
}

// A name in an array bound that makes it a run-time size: the built-in index variables, or a
// parameter of the enclosing function. Empty when every bound may be a constant expression.
std::string_view runtime_bound_name(const Tokens& t, const Indices& part,
                                    const std::vector<int>& depth,
                                    const std::vector<std::string_view>& parameters) {
  for (std::size_t k = 0; k < part.size(); ++k) {
    const Token& tok = t[part[k]];
    if (depth[k] == 0 || tok.kind != TokenKind::kIdentifier) continue;
    if (one_of(tok, {"sizeof", "alignof", "decltype"}) && k + 1 < part.size() &&
        t[part[k + 1]].is("(")) {
      // Unevaluated: sizeof(n) is a constant even where n is not.
      const std::size_t close = match_forward(t, part[k + 1]);
      while (close != kNoMatch && k + 1 < part.size() && part[k + 1] <= close) ++k;
      continue;
    }
    if (k > 0 && (t[part[k - 1]].is(".") || t[part[k - 1]].is("->") || t[part[k - 1]].is("::")))
      continue;  // a member, or a name in another scope
    if (one_of(tok, {"threadIdx", "blockIdx", "blockDim", "gridDim"})) return tok.text;
    for (std::string_view p : parameters)
      if (tok.text == p) return tok.text;
  }
  return {};
}

class SharedPass {
 public:
  explicit SharedPass(const Source& src)
      : src_(src), t_(src.tokens), ns_scope_(namespace_scope_flags(src.tokens)) {}

  PassResult run() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (!t_[i].is("__shared__")) continue;
      Declaration d;
      std::string error = find_declaration(t_, i, &d);
      std::vector<Declarator> decls;
      if (error.empty()) error = parse(d, &decls);
      if (error == kVariableLengthArray) {
        result_.errors.push_back({t_[i].begin, error});
        i = d.semicolon;
        continue;
      }
      if (!error.empty()) {
        result_.findings.push_back({t_[i].begin, error + "; left unchanged"});
        continue;
      }
      emit(d, decls, ns_scope_[d.first]);
      i = d.semicolon;
    }
    return std::move(result_);
  }

 private:
  std::string parse(const Declaration& d, std::vector<Declarator>* out) const {
    for (std::size_t i : d.rest) {
      if (t_[i].is("=")) return "a __shared__ variable cannot have an initializer";
    }
    std::vector<std::vector<int>> depths;
    std::vector<Indices> parts = split_declarators(t_, d.rest, &depths);
    for (std::size_t p = 0; p < parts.size(); ++p) {
      for (std::size_t k = 0; k < parts[p].size(); ++k) {
        // Only an array bound may hold a literal (`char s[sizeof("x")]`); one outside brackets is
        // what an unterminated quote swallowed.
        const TokenKind kind = t_[parts[p][k]].kind;
        if (depths[p][k] == 0 && (kind == TokenKind::kString || kind == TokenKind::kChar)) {
          return "unexpected literal in the declaration";
        }
      }
    }

    // The first part holds the type too: the declarator starts at the pointer operators before
    // the name (`float *p`); cv-qualifiers before the first `*` still belong to the type.
    const std::size_t name0 = name_position(t_, parts[0], depths[0]);
    if (name0 == kNoMatch || name0 == 0) return "cannot find the declared name and type";
    std::size_t start = name0;
    while (start > 0 && (t_[parts[0][start - 1]].is("*") || t_[parts[0][start - 1]].is("&") ||
                         is_cv(t_[parts[0][start - 1]]))) {
      --start;
    }
    while (start < name0 && is_cv(t_[parts[0][start]])) ++start;
    if (start == 0) return "cannot find the type of the declaration";
    const Indices base(parts[0].begin(), parts[0].begin() + start);
    parts[0].erase(parts[0].begin(), parts[0].begin() + start);
    depths[0].erase(depths[0].begin(), depths[0].begin() + start);

    for (std::size_t p = 0; p < parts.size(); ++p) {
      const std::size_t name = name_position(t_, parts[p], depths[p]);
      if (name == kNoMatch) return "cannot find the declared name";
      Indices type = base;
      for (std::size_t k = 0; k < parts[p].size(); ++k) {
        if (k != name) type.push_back(parts[p][k]);
      }
      const bool unsized =
          parts[p].size() == 3 && name == 0 && t_[parts[p][1]].is("[") && t_[parts[p][2]].is("]");
      if (d.is_extern && !unsized) return "expected 'extern __shared__ T name[]'";
      // nvcc refuses a run-time size with these words; g++ would instead name the emulator's
      // block_shared<...> template. The rewrite cannot evaluate every bound, so it looks for the
      // sure signs only: the index variables and the function's parameters.
      if (!d.is_extern &&
          !runtime_bound_name(t_, parts[p], depths[p], enclosing_parameters(t_, ns_scope_, d.first))
               .empty())
        return kVariableLengthArray;
      out->push_back(
          {std::string(t_[parts[p][name]].text), spell(t_, d.is_extern ? base : type), unsized});
    }
    return "";
  }

  std::string storage(const Declaration& d, const Declarator& v) {
    return d.is_extern
               ? "::emu::dynamic_shared<" + v.type + ">()"
               : "::emu::block_shared<" + v.type + ", " + std::to_string(next_id_++) + ">()";
  }

  // At namespace scope, an object that is the running block's array wherever it is used, for a
  // name the file also gives something else (named_elsewhere): a local of that name hides it, as
  // on a GPU. Only arrays: a scalar would need every operator.
  std::string name_object(const Declaration& d, const Declarator& v) {
    const std::string type = d.is_extern ? "::emu::dynamic_shared_name<" + v.type + ">"
                                         : "::emu::block_shared_name<" + v.type + ", " +
                                               std::to_string(next_id_++) + ">";
    return "constexpr " + type + " " + v.name + "{};";
  }

  void emit(const Declaration& d, const std::vector<Declarator>& decls, bool at_namespace_scope) {
    const std::size_t begin = t_[d.first].begin, end = t_[d.semicolon].end;
    std::string text;
    bool objects = at_namespace_scope;
    for (const Declarator& v : decls)
      objects = objects && (d.is_extern || v.type.find('[') != std::string::npos) &&
                named_elsewhere(t_, v.name, d.first, d.semicolon);
    if (objects) {
      for (const Declarator& v : decls) text += (text.empty() ? "" : " ") + name_object(d, v);
      result_.edits.push_back({begin, end, keep_newlines(text, src_, begin, end)});
      return;
    }
    for (const Declarator& v : decls) {
      const std::string value = storage(d, v);
      if (at_namespace_scope) {
        text += "#define " + v.name + " (" + value + ")\n";
      } else {
        text += (text.empty() ? "" : " ") + (d.is_extern ? v.type + "* " : std::string("auto& ")) +
                v.name + " = " + value + ";";
      }
    }
    if (!at_namespace_scope) {
      result_.edits.push_back({begin, end, keep_newlines(text, src_, begin, end)});
      return;
    }
    // Directives need lines of their own: put them after the declaration's line and renumber.
    result_.edits.push_back({begin, end, keep_newlines("", src_, begin, end)});
    const std::size_t nl = src_.text.find('\n', end);
    if (nl == std::string_view::npos) {
      result_.edits.push_back({src_.text.size(), src_.text.size(), "\n" + text});
      return;
    }
    const Location next = src_.lines.at(nl + 1);
    text += next.file.empty() ? "#line " + std::to_string(next.line) + "\n"
                              : "# " + std::to_string(next.line) + " \"" + next.file + "\"\n";
    result_.edits.push_back({nl + 1, nl + 1, text});
  }

  const Source& src_;
  const Tokens& t_;
  std::vector<bool> ns_scope_;
  int next_id_ = 0;
  PassResult result_;
};

}  // namespace

PassResult rewrite_shared(const Source& src) { return SharedPass(src).run(); }

}  // namespace emu::rewrite
