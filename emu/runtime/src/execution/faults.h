// Memory faults (SIGSEGV/SIGBUS): classified against the device allocations and the guard ranges,
// written as a fatal diagnostic, then the process exits with status 86.
#pragma once

namespace emu::detail {
// The emulator's own: labgrade does not read it (the student's code in the process could exit with
// it too), so it is no part of the harness protocol (common/harness/protocol/harness_protocol.h).
constexpr int kFatalExitCode = 86;

// Installs the handlers once per process.
void install_fault_handlers();
// The handler runs on an alternate stack (fiber stacks are small and may be the thing that
// overflowed); each OS thread needs its own.
void ensure_alternate_signal_stack();
}  // namespace emu::detail
