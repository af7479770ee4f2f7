// Memory of the process's own that kernel code of a counted launch has no business touching: where
// the CPU backend keeps what it knows of the launch (its counts, the blocks it samples, the
// pointer to the running block's counting state), and the harness its records. On the CPU backend
// a kernel is native code in the emulator's process, so it can form a pointer to any of it, read
// which blocks are sampled, or subtract from its own counts (red-team cases
// r7_emulator_state_names_sampled_blocks, r7_thread_local_counting_state_names_sampled_blocks,
// r3_kernel_rewrites_its_block_counts). No GPU kernel can be handed a pointer into host memory, so
// an access there is refused as a GPU refuses an illegal address (access_counter.h's note_access).
//
// Every access the instrumentation reports in a counted block is checked against these ranges; the
// accesses the compiler leaves uninstrumented are to the student's own named objects, which lie in
// none of them. Uncounted launches are not checked (their hooks return at once): see
// docs/THREAT_MODEL.md for what that leaves open.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

namespace emu::detail {

// The calling OS thread's, written to `out` (at most `max` ranges; the number written returned):
// every module's thread-local block (the running block's counting state and the pointer to it
// among them), but the CUDA built-in variables (threadIdx, blockIdx, blockDim, gridDim); and,
// where the student's data is watched (watched_data.h), every module's writable segments (the
// emulator's globals) outside the parts made read-only after relocation and outside the
// student's own data. Sorted, not overlapping. (The student's __constant__ variables lie in a
// writable segment of their own; note_access lets a launch's constant memory and parameters
// through first.)
// Computed afresh for each counted block, from the program's headers, and kept in the block's
// own state: a copy kept from one launch to the next would be memory a kernel of an uncounted
// launch (which nothing checks) could empty.
size_t own_memory_now(std::pair<uintptr_t, uintptr_t>* out, size_t max);

}  // namespace emu::detail
