// What a kernel may call on the CPU backend. There, kernels are native code in one translation
// unit with the host code, so nothing stops device code from calling the C or C++ library: a
// call nvcc would refuse ("calling a __host__ function from a __global__ function"). And the
// library is not instrumented, so such a call would read device memory without the emulator
// counting it (strlen, snprintf, std::string's copies, cudaMemcpy): loads hidden from the
// technique check.
//
// Before the link, each library function the student's object calls is sent somewhere by
// renaming the reference in that object only (objcopy --redefine-syms), per symbol_families'
// InKernel:
//   - kCallable (maths, printf, malloc, barriers, data): left as it is;
//   - kEmulated: to emu's own version, __emu_device_<name>. memcpy, memmove, memset and their
//     _chk forms report the bytes they read and write, as the instrumented code's own accesses
//     are reported; clock() reads, in kernel code, a clock that counts its own calls rather than
//     time, so that a kernel cannot time itself to tell a counting run (slower) from the others;
//   - kHostOnly (everything else): to a stub of a few instructions, written here as assembly,
//     that goes on to the real function in host code and, in kernel code, ends the run through
//     emu's __emu_host_call_in_kernel, which names the function and the call's place
//     ("host_call_in_kernel" in the emulator's report).
// The stub takes any signature, as it only jumps: registers and stack are the caller's.
#pragma once

#include <string>
#include <vector>

#include "symbol_policy.h"

namespace labkit {

struct DeviceCallGuard {
  std::string redefinitions;  // objcopy --redefine-syms lines: "old new"
  std::string stubs;          // GNU assembly for x86-64 (empty: no host-only call to guard)
  bool empty() const { return redefinitions.empty(); }
};

// What the object's undefined references to functions become. Weak references and data (stdout,
// std::cout, vtables, the thread-index variables) are left alone.
DeviceCallGuard GuardDeviceCalls(const std::vector<ObjectSymbol>& symbols);

// Whether an undefined name refers to data rather than a function: a C name the libraries export
// as data, or a C++ name whose demangled form has no parameter list.
bool NamesData(const std::string& name);

}  // namespace labkit
