// The runtime's error state, as CUDA keeps it: a "last error" that cudaGetLastError returns and
// clears, and a sticky error (a kernel that failed while running) that every call returns until
// cudaDeviceReset.
#pragma once
#include "labkit_emu/runtime_types.h"

namespace emu::detail {
// Records a call's result as the last error (when it is one) and returns it.
cudaError_t record(cudaError_t result);
// Marks the context as broken by a failed kernel.
void make_sticky(cudaError_t error);
// The sticky error, or cudaSuccess.
cudaError_t sticky_error();
void clear_errors();
}  // namespace emu::detail
