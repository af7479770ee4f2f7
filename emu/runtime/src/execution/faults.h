// Memory faults (SIGSEGV/SIGBUS): classified against the device allocations and the guard ranges,
// written as a fatal diagnostic, then the process exits with status 86.
#pragma once
#include <cstdint>

#include "diagnostics.h"  // kFatalExitCode

namespace emu::detail {

// A kernel called `function`, a library function only host code may call (labgrade's stubs,
// grader/build/device_call_guard.h, come here with the call's return address): reported as
// "host_call_in_kernel", with the kernel, block, thread and the call's place, then the process
// exits with kFatalExitCode. On a GPU nvcc refuses such a call; here the C library's code is not
// instrumented, so the call could read device memory uncounted.
extern "C" [[noreturn]] void __emu_host_call_in_kernel(const char* function,
                                                       uintptr_t return_address);

// Installs the handlers once per process.
void install_fault_handlers();
// The handler runs on an alternate stack (fiber stacks are small and may be the thing that
// overflowed); each OS thread needs its own.
void ensure_alternate_signal_stack();
}  // namespace emu::detail
