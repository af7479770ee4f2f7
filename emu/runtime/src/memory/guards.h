// Address ranges that are PROT_NONE on purpose (fiber stack guards, the end of dynamic shared
// memory), registered so that the fault handler can say what a fault hit. Lock-free reads: the
// handler must not take locks.
#pragma once
#include <cstdint>

namespace emu::detail {
enum class GuardKind : int { none, fiber_stack, dynamic_shared };

void register_guard(uintptr_t begin, uintptr_t end, GuardKind kind);
GuardKind find_guard(uintptr_t address);
}  // namespace emu::detail
