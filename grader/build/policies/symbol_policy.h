// Which symbols a student's object may refer to and define: an allow-list, per backend.
//
// A submission is linked into the grader's harness, so every library function it can call, and
// every symbol it defines, is reachable from inside the harness. A ban list of bad names always
// misses one (a library found with dlsym, the C library's own fwrite replaced); here every
// undefined symbol of the object must belong to a family the labs need (the CUDA runtime calls of
// a listed set, printing to the terminal, maths, strings and containers, memory, exceptions), and
// every defined global symbol must be the student's own (not the C/C++ library's, CUDA's, the
// kit's or the CPU backend's). The families are data (symbol_families.cpp); the lists were made by
// compiling every solution, starter, mutant and hostile-corpus file on both backends and reading
// `nm -g` of the objects.
//
// The check reads names only: it keeps honest code honest and makes the easy routes (a library
// GEMM by dlsym, a replaced exit hook, mprotect on the CPU backend's guard pages) fail with a clear
// message. Code that reaches a function without naming it (inline assembly, walking the loader's
// tables by hand) is stopped elsewhere, by the process that records the student's calls and the
// one that replays them on inputs the student never saw.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "symbol_families.h"

namespace labkit {

// One global symbol of an object, as `nm -g` lists it.
struct ObjectSymbol {
  std::string name;  // mangled, without a version suffix ("@GLIBC_2.2.5")
  char type = 'U';   // nm's letter: U/w undefined, T/D/B/R/C defined, W/V/u/i weak or unique
  bool defined() const { return type != 'U' && type != 'w' && type != 'v'; }
};

// The symbols of an `nm -g` listing (lines "ADDRESS TYPE NAME" or "TYPE NAME").
std::vector<ObjectSymbol> ParseNmListing(const std::string& listing);

// A symbol the submission may not use, and why, said for the student.
struct SymbolRefusal {
  std::string symbol;    // as in the object
  std::string readable;  // demangled where it is a C++ name
  bool defined = false;  // defined by the submission (else: called or referred to)
  std::string why;
};

// nullopt when `symbol` is allowed on `backend`.
std::optional<SymbolRefusal> JudgeSymbol(const ObjectSymbol& symbol, Backend backend);

// On the CPU backend, what a kernel's call of the referenced `name` does (symbol_families.h's
// InKernel): that of the allowed family the check above finds it in; host code's for a name in
// none (refused, or not checked).
symbol_families::InKernel KernelUseOnCpu(const std::string& name);

// Every refused symbol of an object, each name once.
std::vector<SymbolRefusal> RefusedSymbols(const std::vector<ObjectSymbol>& symbols,
                                          Backend backend);

// For the student: "matmul.cu uses dlopen and dlsym, which the grader does not allow: ...", one
// line per reason, naming the symbols (the first few of each).
std::string RefusalMessage(const std::string& file, const std::vector<SymbolRefusal>& refused);

}  // namespace labkit
