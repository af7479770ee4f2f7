#include "compile_plan.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace emu::cxx {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool in(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Options whose value is the next argument; the joined form (`-DX`, `-MFfile`) also exists for
// the one-letter and -M ones.
bool takes_value(std::string_view a) {
  return in(a, {"-o",
                "-x",
                "-D",
                "-U",
                "-I",
                "-include",
                "-imacros",
                "-isystem",
                "-iquote",
                "-idirafter",
                "-iprefix",
                "-iwithprefix",
                "-iwithprefixbefore",
                "-isysroot",
                "-imultilib",
                "-MF",
                "-MT",
                "-MQ",
                "-Xpreprocessor",
                "-Xassembler",
                "-Xlinker",
                "--param",
                "-aux-info",
                "-L",
                "-l",
                "-T",
                "-u",
                "-z",
                "-e",
                "-dumpbase",
                "-dumpbase-ext",
                "-dumpdir",
                "--sysroot",
                "-Xclang",
                "-target"});
}

// Flags that only the preprocessor step may see. `a` is the option word itself (`-D`, `-DX`).
bool preprocessor_only(std::string_view a) {
  if (in(a, {"-MD", "-MMD", "-MP", "-MG", "-iprefix", "-iwithprefix", "-iwithprefixbefore",
             "-Xpreprocessor", "-nostdinc", "-nostdinc++", "-undef"})) {
    return true;
  }
  // Prefixes, to catch the joined forms too (`-DX`, `-isystem/usr/include`).
  for (std::string_view p : {"-D", "-U", "-I", "-MF", "-MT", "-MQ", "-Wp,", "-include", "-imacros",
                             "-isystem", "-iquote", "-idirafter"}) {
    if (starts_with(a, p)) return true;
  }
  return false;
}

// CUDA sources, and the `x.cu.cpp` wrappers Emu.cmake generates for them. Other C++ sources (a
// library's host-only .cpp files, which share the target and hence the launcher) compile unchanged.
bool is_cuda_source(std::string_view path) {
  return ends_with(path, ".cu") || ends_with(path, ".cu.cpp");
}

std::string strip_extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash)
             ? path
             : path.substr(0, dot);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<CompilePlan> plan_compile(const std::vector<std::string>& command,
                                        const EmuPaths& paths, bool refuse_uncounted) {
  if (command.empty()) return std::nullopt;
  CompilePlan plan;
  std::vector<std::string> for_cpp, for_cc;  // options for steps (a) and (c)
  std::vector<std::string> inputs;
  bool compile = false, preprocess_only = false, has_mf = false, has_mt = false, wants_deps = false;

  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "-c") {
      compile = true;
    } else if (a == "-E") {
      preprocess_only = true;
    } else if (in(a, {"-S", "-M", "-MM", "-fsyntax-only"}) || starts_with(a, "@")) {
      return std::nullopt;  // not a plain compile to an object (or unknowable): run it as it is
    } else if (a.size() < 2 || a[0] != '-') {
      inputs.push_back(a);
    } else if (a == "-o" || starts_with(a, "-o")) {
      if (a == "-o" && i + 1 >= command.size()) return std::nullopt;
      plan.output = a == "-o" ? command[++i] : a.substr(2);
    } else if (a == "-x" || starts_with(a, "-x")) {
      if (a == "-x") ++i;  // the language is ours to choose in both steps
    } else {
      const bool pre = preprocessor_only(a);
      has_mf |= starts_with(a, "-MF");
      has_mt |= starts_with(a, "-MT") || starts_with(a, "-MQ");
      wants_deps |= a == "-MD" || a == "-MMD";
      std::vector<std::string>& dest = pre ? for_cpp : for_cc;
      dest.push_back(a);
      if (takes_value(a) && i + 1 < command.size()) dest.push_back(command[++i]);
    }
  }
  if (compile == preprocess_only || inputs.size() != 1 || !is_cuda_source(inputs[0]))
    return std::nullopt;

  plan.input = inputs[0];
  const std::string& cxx = command[0];
  const std::vector<std::string> emu_view = {
      cxx, "-D__LABKIT_EMU__=1", "-I", paths.include_dir, "-include", paths.header};
  if (preprocess_only) {
    // The source as the CPU backend compiles it, and nothing more: step (a) alone, every option
    // the caller gave (-fdirectives-only, -dD, ...) included, to the caller's output.
    plan.preprocess = emu_view;
    plan.preprocess.insert(plan.preprocess.end(), for_cc.begin(), for_cc.end());
    plan.preprocess.insert(plan.preprocess.end(), for_cpp.begin(), for_cpp.end());
    plan.preprocess.push_back("-E");
    if (!plan.output.empty()) plan.preprocess.insert(plan.preprocess.end(), {"-o", plan.output});
    plan.preprocess.insert(plan.preprocess.end(), {"-x", "c++", plan.input});
    return plan;
  }
  if (plan.output.empty()) plan.output = strip_extension(base_name(plan.input)) + ".o";
  plan.preprocessed = plan.output + ".emu.ii";
  plan.rewritten = plan.output + ".emu.cpp";
  // Without -MF/-MT, -MD would name the dependency file and its target after the temporary.
  if (wants_deps && !has_mf)
    for_cpp.insert(for_cpp.end(), {"-MF", strip_extension(plan.output) + ".d"});
  if (wants_deps && !has_mt) for_cpp.insert(for_cpp.end(), {"-MT", plan.output});

  plan.preprocess = emu_view;
  plan.preprocess.insert(plan.preprocess.end(), for_cc.begin(), for_cc.end());  // -std, -O, -f...
  plan.preprocess.insert(plan.preprocess.end(), for_cpp.begin(), for_cpp.end());
  plan.preprocess.insert(plan.preprocess.end(),
                         {"-E", "-o", plan.preprocessed, "-x", "c++", plan.input});
  plan.rewrite = {paths.rewrite, plan.preprocessed, plan.rewritten};
  // A counted compile (the kernel-address instrumentation the emulator answers by counting)
  // refuses what the count cannot see (rewrites/uncounted_access.h).
  if (refuse_uncounted &&
      std::find(for_cc.begin(), for_cc.end(), "-fsanitize=kernel-address") != for_cc.end())
    plan.rewrite.insert(plan.rewrite.begin() + 1, "--counted");
  plan.compile = {cxx};
  plan.compile.insert(plan.compile.end(), for_cc.begin(), for_cc.end());
  plan.compile.insert(plan.compile.end(), {"-c", "-o", plan.output});
  return plan;
}

}  // namespace emu::cxx
