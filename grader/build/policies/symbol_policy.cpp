#include "symbol_policy.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "cuda_runtime_names.h"
#include "symbol_families.h"

namespace labkit {
namespace {

// Why a symbol is refused by a rule below rather than by a family of symbol_families.cpp, as the
// student reads it after "which the grader does not allow: ".
constexpr const char* kBuildProbe =
    "a weak reference to a hook of the grader's instrumented builds (the CPU backend's graded "
    "builds and its ThreadSanitizer build, whose calls of it are ordinary references) only asks "
    "which build is running, and a lab's result must not depend on that";
constexpr const char* kOtherCuda =
    "the grader allows only the CUDA runtime calls the labs need (memory, copies, streams, "
    "events, errors, device and kernel attributes, occupancy), and this is not one of them";
constexpr const char* kNotListed =
    "the grader allows only the CUDA runtime calls and the C and C++ library functions the labs "
    "need (printing to the terminal, maths, strings, containers, memory, exceptions, clocks), and "
    "this is not one of them; ask your instructor if your code really needs it";
constexpr const char* kKitTemplate =
    "it is an instance of a template with the kit's own types (labkit::...), which the grader's "
    "harness has too, and the linker keeps one copy for both: yours could replace the harness's. "
    "Your code needs none of the grader's types";
constexpr const char* kKitLibrary =
    "it belongs to nlohmann::json, the library the grader's harness writes its report with, and "
    "yours (an instance or a specialisation of its templates) could replace the harness's: a lab "
    "needs no JSON of its own";
constexpr const char* kExternCFunction =
    "a function with C linkage (extern \"C\") can replace a C library function the grader's "
    "harness calls; drop the extern \"C\"";

// The first family of `families` that `name` belongs to, or nullptr.
const symbol_families::Family* Find(const symbol_families::Families& families,
                                    const std::string& name) {
  for (const symbol_families::Family& f : families)
    if (std::regex_match(name, f.pattern)) return &f;
  return nullptr;
}

// `_Z10cudaMallocPPvm` -> `cudaMalloc`: a C++ function at global scope, named by its identifier,
// which is how the CPU backend's runtime API functions (and a C function declared without
// extern "C") appear. Other names are returned unchanged.
std::string Identifier(const std::string& name) {
  if (name.size() < 4 || name.compare(0, 2, "_Z") != 0 ||
      !std::isdigit(static_cast<unsigned char>(name[2])))
    return name;
  std::size_t digits = 2;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  const std::size_t length = std::stoul(name.substr(2, digits - 2));
  if (digits + length > name.size()) return name;
  return name.substr(digits, length);
}

std::string Demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// A template's instantiation (std::vector<float>::..., emu::block_shared<...>): the compiler
// emits one, weak, in every object that uses it. Read from the mangled name: some part of the
// entity's (nested) name carries template arguments (`I...E` right after a name), as in
// `_ZNSt6vectorIfSaIfEE17_M_default_appendEm` or `_ZN3emu12block_sharedIA16_A16_fLi1EEERT_v`;
// local statics (`_ZZ`) and their guards (`_ZGVZ`) are judged by their function.
bool IsTemplateInstance(const std::string& name) {
  std::size_t i = 0;
  for (const char* prefix : {"_ZGVZ", "_ZZ", "_ZGV", "_Z"})
    if (name.compare(0, std::strlen(prefix), prefix) == 0) {
      i = std::strlen(prefix);
      break;
    }
  if (i == 0) return false;
  if (i < name.size() && name[i] == 'N') ++i;
  while (i < name.size() && (name[i] == 'K' || name[i] == 'V' || name[i] == 'r')) ++i;
  while (i < name.size()) {
    if (name.compare(i, 2, "St") == 0) {
      i += 2;
    } else if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      std::size_t digits = i;
      while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])))
        ++digits;
      i = digits + std::stoul(name.substr(i, digits - i));
    } else {
      return false;
    }
    if (i < name.size() && name[i] == 'I') return true;
  }
  return false;
}

// Whether a mangled name mentions the namespace whose length-prefixed form is `tag` ("6labkit")
// in any part, the entity's scope or a template argument (std::vector<labkit::LaunchRecord>):
// where the length is a whole number ("16labkitfoobarbaz", a longer name, does not count).
bool MentionsNamespace(const std::string& name, const std::string& tag) {
  for (std::size_t at = name.find(tag); at != std::string::npos; at = name.find(tag, at + 1))
    if (at == 0 || !std::isdigit(static_cast<unsigned char>(name[at - 1]))) return true;
  return false;
}

bool IsCpuRuntimeName(const std::string& id) {
  static const std::set<std::string> names = [] {
    std::istringstream list(LABKIT_CUDA_RUNTIME_NAMES);
    return std::set<std::string>{std::istream_iterator<std::string>(list), {}};
  }();
  return names.count(id) > 0;
}

SymbolRefusal Refusal(const ObjectSymbol& symbol, const char* why) {
  return {symbol.name, Demangled(symbol.name), symbol.defined(), why};
}

std::optional<SymbolRefusal> JudgeDefinition(const ObjectSymbol& symbol) {
  const auto& generated = symbol_families::All().generated_definitions;
  const auto& reserved = symbol_families::All().reserved_definitions;
  const auto& refused = symbol_families::All().refused;
  const auto& allowed = symbol_families::All().allowed;
  if (Find(generated, symbol.name)) return std::nullopt;
  if (symbol.type == 'W' && Find(symbol_families::All().header_inline_members, symbol.name))
    return std::nullopt;
  // A name that could be called is a library's name: defining it would replace the library's,
  // for the harness too (even weakly: an executable's definition comes before a shared
  // library's, so an "inline" std::ostream member would replace libstdc++'s).
  const std::string id = Identifier(symbol.name);
  if (Find(refused, symbol.name) || Find(allowed, symbol.name) || Find(refused, id))
    return Refusal(symbol, symbol_families::kReservedDefinition);
  // Templates' instantiations (std::vector<float>::..., emu::block_shared<...>) and inline
  // variables (std::piecewise_construct): the compiler emits them, weak, in every object that
  // uses them.
  const bool weak = symbol.type == 'W' || symbol.type == 'V' || symbol.type == 'u';
  const bool std_data = (symbol.type == 'V' || symbol.type == 'u') &&
                        (symbol.name.rfind("_ZSt", 0) == 0 || symbol.name.rfind("_ZNSt", 0) == 0);
  // ... except those with the kit's own types. The linker keeps one copy of each instance, so a
  // student's std::vector<labkit::LaunchRecord> made with a LaunchRecord of another size could
  // be the one the harness grows its records with.
  if (weak && MentionsNamespace(symbol.name, "6labkit")) return Refusal(symbol, kKitTemplate);
  // The harness's JSON library, whatever the kind of definition: a strong specialisation of
  // basic_json::dump replaced the harness's weak instance and rewrote every line it wrote (a
  // red-team pass, 2026-11-28); a weak one can win too, by coming first on the link line.
  if (MentionsNamespace(symbol.name, "8nlohmann")) return Refusal(symbol, kKitLibrary);
  if (weak && (std_data || IsTemplateInstance(symbol.name))) return std::nullopt;
  if (const symbol_families::Family* f = Find(reserved, symbol.name))
    return Refusal(symbol, f->why);
  // A C++ function at global scope of a CUDA runtime name the CPU backend defines (cudaMalloc,
  // mangled there); any other `cuda...` helper of the student's replaces nothing.
  if (id != symbol.name && IsCpuRuntimeName(id))
    return Refusal(symbol, symbol_families::kReservedDefinition);
  // Unmangled code is extern "C" (unmangled data is an ordinary C++ global: `int counter;`).
  const bool code = symbol.type == 'T' || symbol.type == 'W' || symbol.type == 'i';
  if (code && symbol.name.compare(0, 2, "_Z") != 0) return Refusal(symbol, kExternCFunction);
  return std::nullopt;
}

std::optional<SymbolRefusal> JudgeReference(const ObjectSymbol& symbol, Backend backend) {
  const auto& refused = symbol_families::All().refused;
  const auto& allowed = symbol_families::All().allowed;
  const auto& gpu_allowed = symbol_families::All().gpu_allowed;
  const auto& cpu_allowed = symbol_families::All().cpu_allowed;
  const auto& cpu_refused = symbol_families::All().cpu_refused;
  static const std::regex cuda_name("^(cuda|cu[A-Z]).*");
  static const std::regex sanitizer_hook("^__(asan|tsan)_.*");
  // Weak: null where no object defines it. The hooks are defined only in the builds instrumented
  // for them, so `&__asan_load4_noabort != nullptr` would tell the ThreadSanitizer build (which
  // lacks AddressSanitizer's) from the graded ones, or any build from the GPU's.
  if ((symbol.type == 'w' || symbol.type == 'v') && std::regex_match(symbol.name, sanitizer_hook))
    return Refusal(symbol, kBuildProbe);
  const bool gpu = backend == Backend::kGpu;
  // On the CPU backend the runtime API is C++: judge `_Z10cudaMallocPPvm` as `cudaMalloc`.
  const std::string id = gpu ? symbol.name : Identifier(symbol.name);
  for (const std::string* name : {&symbol.name, &id}) {
    if (const symbol_families::Family* f = Find(refused, *name)) return Refusal(symbol, f->why);
    if (!gpu && Find(cpu_allowed, *name)) return std::nullopt;  // before emu's other internals
    if (const symbol_families::Family* f = gpu ? nullptr : Find(cpu_refused, *name))
      return Refusal(symbol, f->why);
    if (Find(allowed, *name) || Find(gpu ? gpu_allowed : cpu_allowed, *name)) return std::nullopt;
  }
  if (std::regex_match(id, cuda_name)) return Refusal(symbol, kOtherCuda);
  return Refusal(symbol, kNotListed);
}

}  // namespace

symbol_families::InKernel KernelUseOnCpu(const std::string& name) {
  const auto& allowed = symbol_families::All().allowed;
  const auto& cpu_allowed = symbol_families::All().cpu_allowed;
  // The lookup JudgeReference makes on the CPU backend: the name, then its identifier.
  for (const std::string& n : {name, Identifier(name)})
    for (const auto* families : {&cpu_allowed, &allowed})
      if (const symbol_families::Family* f = Find(*families, n)) return f->in_kernel;
  return symbol_families::InKernel::kHostOnly;
}

std::vector<ObjectSymbol> ParseNmListing(const std::string& listing) {
  std::vector<ObjectSymbol> symbols;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    const std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    // "ADDRESS TYPE NAME" for a definition, "TYPE NAME" (no address) for a reference.
    if (f.size() < 2 || f.size() > 3 || f[f.size() - 2].size() != 1) continue;
    ObjectSymbol s;
    s.type = f[f.size() - 2][0];
    s.name = f.back().substr(0, f.back().find('@'));
    symbols.push_back(s);
  }
  return symbols;
}

std::optional<SymbolRefusal> JudgeSymbol(const ObjectSymbol& symbol, Backend backend) {
  return symbol.defined() ? JudgeDefinition(symbol) : JudgeReference(symbol, backend);
}

std::vector<SymbolRefusal> RefusedSymbols(const std::vector<ObjectSymbol>& symbols,
                                          Backend backend) {
  std::vector<SymbolRefusal> refused;
  std::set<std::string> seen;
  for (const ObjectSymbol& s : symbols)
    if (seen.insert(s.name).second)
      if (auto r = JudgeSymbol(s, backend)) refused.push_back(*r);
  return refused;
}

std::string RefusalMessage(const std::string& file, const std::vector<SymbolRefusal>& refused) {
  // One line per reason, naming the first few symbols of it: a std::ofstream alone brings a
  // dozen names of one family.
  constexpr std::size_t kNamesPerLine = 3;
  std::vector<std::pair<const SymbolRefusal*, std::vector<std::string>>> lines;
  for (const SymbolRefusal& r : refused) {
    auto same = std::find_if(lines.begin(), lines.end(), [&](const auto& line) {
      return line.first->why == r.why && line.first->defined == r.defined;
    });
    if (same == lines.end()) same = lines.insert(lines.end(), {&r, {}});
    same->second.push_back(r.readable);
  }
  std::string text;
  for (const auto& [first, names] : lines) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < kNamesPerLine; ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    if (names.size() > kNamesPerLine)
      list += " (and " + std::to_string(names.size() - kNamesPerLine) + " more of the kind)";
    text += (text.empty() ? "" : "\n") + file + (first->defined ? " defines " : " uses ") + list +
            ", which the grader does not allow: " + first->why + ".";
  }
  return text;
}

}  // namespace labkit
