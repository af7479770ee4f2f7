// Occupancy answers for the modelled GPU, computed by the CUDA Toolkit's own calculator
// (cuda_occupancy.h), so that they equal what the real runtime reports.
#pragma once
#include <cstddef>

#include "kernels.h"

namespace emu::detail {
// Blocks of `k` resident per SM at this block size and dynamic shared memory; 0 when a block
// cannot run at all (too many registers or too much shared memory). -1 when no calculator was
// available at build time.
int active_blocks_per_sm(const KernelInfo& k, int block_size, size_t dynamic_smem);
}  // namespace emu::detail
