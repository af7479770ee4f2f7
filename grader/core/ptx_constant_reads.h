// Which kernels of a PTX module read `__constant__` memory. ptxas's -v report stopped listing
// constant banks in CUDA 13, so the PTX is where this is read: on a GPU the PTX in the build's
// own fatbinary, on the CPU backend a compile for the modelled GPU.
#pragma once

#include <set>
#include <string>

namespace labkit {

// The entry functions (mangled names) with an `ld.const` instruction in their body or in a device
// function they call, directly or not. The student's inline asm reaches the PTX as written, so
// comments and string literals (a `.pragma "..."`) are text, not code, and a function's body ends
// at its own closing brace wherever that stands. Not seen: a load ptxas finds dead and drops, which
// only the machine code would show, and a call through a function pointer.
std::set<std::string> KernelsReadingConstantMemory(const std::string& ptx);

}  // namespace labkit
