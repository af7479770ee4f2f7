// The families of symbol names the symbol policy (symbol_policy.h) refuses and allows: data, each
// family an ECMAScript regex over the whole name and, for a refused one, why, as the student reads
// it. The lists were made by compiling every solution, starter, mutant and hostile-corpus file on
// both backends and reading `nm -g` of the objects; symbol_policy.cpp decides which list a symbol
// is looked up in.
#pragma once

#include <regex>
#include <vector>

namespace labkit {
namespace symbol_families {

// What a call of an allowed function from kernel code does on the CPU backend, where kernels are
// native code and the C library is not instrumented (device_call_guard.h).
enum class InKernel {
  kHostOnly,  // not device code on a GPU: the kernel's call ends the run, named ("host_call")
  kCallable,  // device code may call it (maths, printf, malloc, barriers) or it is data
  // Sent to the emulator's own version, __emu_device_<name>: memcpy, memmove and memset count the
  // bytes they move; clock reads the emulator's clock, which in kernels is no wall clock.
  kEmulated,
};

struct Family {
  std::regex pattern;
  const char* why;  // nullptr: allowed
  InKernel in_kernel = InKernel::kHostOnly;
};
using Families = std::vector<Family>;

// Every list of families, compiled once on first use.
struct Lists {
  Families refused;  // on both backends, looked at before anything is allowed
  // C and C++ library families every lab may use: the terminal, maths, memory and strings,
  // containers, exceptions, clocks, the compiler's own support code.
  Families allowed;
  Families gpu_allowed;  // GPU backend: what nvcc's generated code calls, the listed runtime calls
  // CPU backend: what emu's headers call after the rewrite, the instrumented builds' hooks, and
  // the listed runtime calls.
  Families cpu_allowed;
  // The CPU backend's other internals, and exit hooks the GPU backend's nvcc emits itself.
  Families cpu_refused;
  // Names a submission may not define (CUDA's, the kit's, the CPU backend's, the C/C++
  // implementation's).
  Families reserved_definitions;
  Families generated_definitions;  // defined by every nvcc or emu-cxx object; fine as they are
  // Inline members of the library's headers that g++ emits, weak, in an object that prints the
  // allowed way (std::endl makes it devirtualise std::ctype<char>::do_widen and emit the body the
  // header gives) or passes a std::function. Fine only weak: that is what the header's own body
  // compiles to.
  Families header_inline_members;
};
const Lists& All();

// Why a definition of a library's name is refused (also for ReservedDefinitions()).
inline constexpr const char* kReservedDefinition =
    "it belongs to CUDA, to the kit or to the C/C++ library, and your definition would replace "
    "the real one inside the grader's harness; give your function or variable a name of its own";

}  // namespace symbol_families
}  // namespace labkit
