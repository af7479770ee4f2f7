// The CPU backend's cp.async primitives (CUDA's <cuda_pipeline.h>, compute capability 8.0 on): a
// kernel copies global memory straight into shared memory, then waits for its copies. Here each
// copy happens at once, through the emulator's counting copy (a load of global memory and a store
// to shared memory in a counted run, as a GPU's counters see cp.async), so committing and waiting
// have nothing left to do. A kernel that reads the shared copy before it waits is racy on a GPU;
// the emulator, which has already copied, does not see that.
#pragma once
#include <cstddef>

#include "labkit_emu/device_copies.h"

// Copies `size_and_align` bytes (4, 8 or 16) from `src_global` to `dst_shared`, the last `zfill`
// of them zeros instead of `src_global`'s.
static inline void __pipeline_memcpy_async(void* dst_shared, const void* src_global,
                                           size_t size_and_align, size_t zfill = 0) {
  const size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
  if (copied > 0) __emu_device_memcpy(dst_shared, src_global, copied);
  if (copied < size_and_align)
    __emu_device_memset(static_cast<char*>(dst_shared) + copied, 0, size_and_align - copied);
}
static inline void __pipeline_commit() {}
static inline void __pipeline_wait_prior(size_t) {}
