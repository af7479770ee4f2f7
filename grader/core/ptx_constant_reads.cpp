#include "ptx_constant_reads.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

namespace labkit {
namespace {

struct Function {
  bool entry = false;
  bool reads_constant = false;
  std::set<std::string> calls;
};

// The function a body belongs to, from the header before its `{` at the module's top level; ""
// for any other block (a `.func` prototype ends with `;` and opens none).
std::pair<std::string, bool> Header(const std::string& statement) {
  static const std::regex kEntry(R"(\.entry\s+([A-Za-z_$][\w$]*))");
  static const std::regex kFunc(R"(\.func\s+(\([^)]*\)\s*)?([A-Za-z_$][\w$]*))");
  std::smatch m;
  if (std::regex_search(statement, m, kEntry)) return {m[1].str(), true};
  if (std::regex_search(statement, m, kFunc)) return {m[2].str(), false};
  return {"", false};
}

// One statement of a function's body: an `ld.const`, or a call of a named function (a call
// through a register names none), after any labels and a predicate (@%p1, @!p).
void Note(const std::string& statement, Function& f) {
  static const std::regex kInstruction(
      R"(^\s*(?:[A-Za-z_$][\w$]*\s*:\s*)*(?:@!?%?[\w$]+\s+)?([a-z][\w.]*)\s*(.*)$)");
  static const std::regex kCallee(R"(^(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*))");
  // The opcode and a callee's name are at the start: a statement of the student's inline asm may
  // be megabytes long, which std::regex would recurse through character by character.
  std::string flat = statement.substr(0, 1024);
  std::replace(flat.begin(), flat.end(), '\n', ' ');  // nvcc writes a call's operands on lines
  std::smatch m;
  if (!std::regex_match(flat, m, kInstruction)) return;
  const std::string opcode = m[1].str(), operands = m[2].str();
  if (opcode == "ld.const" || opcode.rfind("ld.const.", 0) == 0) f.reads_constant = true;
  std::smatch callee;
  if ((opcode == "call" || opcode.rfind("call.", 0) == 0) &&
      std::regex_search(operands, callee, kCallee))
    f.calls.insert(callee[1].str());
}

// The directives that -lineinfo puts between instructions end at the line's end, with no `;`.
bool IsLineDirective(const std::string& statement) {
  const std::size_t first = statement.find_first_not_of(" \t\r\n");
  return first != std::string::npos &&
         (statement.compare(first, 4, ".loc") == 0 || statement.compare(first, 5, ".file") == 0);
}

// The module's functions: comments and string literals dropped, statements split at `;`, `{` and
// `}`, bodies by the depth of their braces.
std::map<std::string, Function> Functions(const std::string& ptx) {
  std::map<std::string, Function> functions;
  Function* current = nullptr;
  int depth = 0;
  std::string statement;
  auto end_statement = [&] {
    if (current != nullptr) Note(statement, *current);
    statement.clear();
  };
  for (std::size_t i = 0; i < ptx.size(); ++i) {
    const char c = ptx[i];
    if (ptx.compare(i, 2, "//") == 0) {
      i = ptx.find('\n', i);
      if (i == std::string::npos) break;
      statement += '\n';
    } else if (ptx.compare(i, 2, "/*") == 0) {
      i = ptx.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
      statement += ' ';
    } else if (c == '"') {
      for (++i; i < ptx.size() && ptx[i] != '"'; ++i)
        if (ptx[i] == '\\') ++i;
      statement += ' ';
    } else if (c == '{') {
      if (depth == 0) {
        const auto [name, entry] = Header(statement);
        current = name.empty() ? nullptr : &functions[name];
        if (current != nullptr) current->entry = current->entry || entry;
        statement.clear();
      } else {
        end_statement();
      }
      ++depth;
    } else if (c == '}') {
      end_statement();
      if (depth > 0 && --depth == 0) current = nullptr;
    } else if (c == ';') {
      end_statement();
    } else if (c == '\n' && IsLineDirective(statement)) {
      statement.clear();
    } else {
      statement += c;
    }
  }
  return functions;
}

}  // namespace

std::set<std::string> KernelsReadingConstantMemory(const std::string& ptx) {
  const std::map<std::string, Function> functions = Functions(ptx);
  std::map<std::string, bool> reads;  // memo; false while a function is being looked at (recursion)
  std::function<bool(const std::string&)> reaches = [&](const std::string& name) {
    const auto memo = reads.find(name);
    if (memo != reads.end()) return memo->second;
    reads[name] = false;
    const auto f = functions.find(name);
    bool any = f != functions.end() && f->second.reads_constant;
    if (f != functions.end())
      for (const std::string& callee : f->second.calls) any = any || reaches(callee);
    return reads[name] = any;
  };
  std::set<std::string> readers;
  for (const auto& [name, f] : functions)
    if (f.entry && reaches(name)) readers.insert(name);
  return readers;
}

}  // namespace labkit
