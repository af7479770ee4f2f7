// A fixed pool of OS threads (LABKIT_EMU_THREADS, default: the hardware's) that share a launch's
// blocks; the launching thread works too. Each OS thread takes the next block index from a shared
// counter, so uneven blocks balance themselves. An order run (LABKIT_EMU_ORDER reverse or random)
// runs the blocks one after the other in that order instead.
#pragma once
#include <cstdint>

#include "scheduler.h"

namespace emu::detail {
// Runs every block of `launch` (block_count of them) and returns when all are done, or when a
// block has failed (launch.failed) and the rest were skipped.
void run_blocks(LaunchState& launch, uint64_t block_count);
}  // namespace emu::detail
