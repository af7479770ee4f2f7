// Memory faults (SIGSEGV/SIGBUS): classified against the device allocations and the guard ranges,
// written as a fatal diagnostic, then the process exits with status 86.
#pragma once

#include "harness_protocol.h"  // the status labgrade reads as the emulator's fault

namespace emu::detail {
constexpr int kFatalExitCode = labkit::kEmuFaultExitCode;

// Installs the handlers once per process.
void install_fault_handlers();
// The handler runs on an alternate stack (fiber stacks are small and may be the thing that
// overflowed); each OS thread needs its own.
void ensure_alternate_signal_stack();
}  // namespace emu::detail
