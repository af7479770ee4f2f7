// Start-up work that every entry point needs before it can report anything: the report file, the
// fault handlers and this OS thread's signal stack. Cheap after the first call.
#pragma once
#include "labkit_emu/runtime_types.h"

namespace emu::detail {
void ensure_initialized();
// ensure_initialized(), then the sticky error if the context is broken (cudaSuccess otherwise):
// API calls start with `if (auto e = enter(); e != cudaSuccess) return e;`.
cudaError_t enter();
}  // namespace emu::detail
