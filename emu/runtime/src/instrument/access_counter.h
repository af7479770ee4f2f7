// Counting what CUDA threads do to memory (labkit_emu/access_counts.h). The scheduler brackets
// each block it runs on an OS thread with begin/end_block_counting; in between, every load and
// store of instrumented code (access_hooks.cpp) is put in one class by address: the block's shared
// memory, a device buffer (or the student's data), or anything else. Anything else that is neither
// the CUDA thread's own stack nor the launch's parameters is host memory, which no GPU kernel can
// read (a buffer a static initialiser allocated, say): it is counted as global memory too, so that
// operands kept there are not loads the technique check misses. Counts stay in the OS thread's
// block state and are added to the launch's total once per block, so the per-access cost is a
// thread-local pointer test and a few comparisons.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "labkit_emu/access_counts.h"

namespace emu::detail {

// One launch: the device buffers as they were when it started (no allocation can change while
// its kernel runs), with the variables named as global memory (count_as_global_memory), and the
// total its blocks add up to. `arguments`: the launch's closure, from which each CUDA thread's
// runner reads the kernel's parameters.
class LaunchCounter {
 public:
  LaunchCounter(const void* arguments, size_t argument_bytes, const char* kernel_name);
  const char* kernel_name() const { return kernel_name_; }
  bool in_device_buffer(uintptr_t address) const;
  bool in_constant_memory(uintptr_t address) const;  // count_as_constant_memory's
  bool in_arguments(uintptr_t address) const;        // the launch's closure
  // Whether [address, address + bytes) reaches into this object or the ranges it holds.
  bool overlaps_itself(uintptr_t address, uint64_t bytes) const;
  // Thread-safe. `watched`: the block ran with the student's data watched (watched_data.h), and
  // `unannounced` is what the watch saw that the instrumentation did not.
  void add(const AccessCounts& block, bool watched, const AccessCounts& unannounced);
  // The blocks' counts, and the unannounced accesses of the watched blocks scaled up to every
  // block (a sample: each watched access costs a fault).
  AccessCounts total() const;
  // How many blocks added their counts.
  uint64_t blocks() const;

 private:
  std::vector<std::pair<uintptr_t, uintptr_t>> buffers_;  // [begin, end), sorted
  std::vector<std::pair<uintptr_t, uintptr_t>> constants_;  // sorted
  std::pair<uintptr_t, uintptr_t> arguments_;
  const char* kernel_name_;
  mutable std::mutex mutex_;
  AccessCounts total_;
  AccessCounts unannounced_;  // the watched blocks'
  uint64_t blocks_ = 0, watched_blocks_ = 0;
};

// Around one block on the calling OS thread. `dynamic_smem` and `dynamic_bytes`: the launch's
// dynamic shared memory as this OS thread's block sees it.
// `watched`: the student's data is watched in this block (watched_data.h).
// `threads_per_block`: the block's CUDA threads, whose loads are kept apart by their index in the
// block (set_counted_thread), warps being 32 consecutive indices.
// `own_memory`: the process's memory no kernel may touch (own_memory.h), sorted, at most
// kMaxOwnMemoryRanges of it (copied into the block's state).
inline constexpr size_t kMaxOwnMemoryRanges = 64;
void begin_block_counting(LaunchCounter& launch, const void* dynamic_smem, size_t dynamic_bytes,
                          bool watched, unsigned threads_per_block,
                          const std::pair<uintptr_t, uintptr_t>* own_memory,
                          size_t own_memory_count);
void end_block_counting();

// The running block's __shared__ array at [bytes, bytes + size) (from poison_shared, which every
// block calls for each array before its first use). No-op when not counting.
void note_shared_array(const void* bytes, size_t size);
// The running block passed a __syncthreads(). No-op when not counting.
void note_block_barrier();
// Warp `warp` of the running block passed a __syncwarp (a shuffle orders no memory, and is not
// one). No-op when not counting.
void note_warp_barrier(unsigned warp);
// One of CUDA's atomic functions (device_atomics.cpp) read and wrote [address, address + bytes):
// counted as a load and a store, both atomic for the record of shared memory (shared_races.h).
void note_atomic_access(uintptr_t address, uint64_t bytes, uintptr_t pc);
// The return address of the running atomic function's call while it works, else 0: a fault on its
// word is reported at the kernel's call (faults.cpp).
extern __thread uintptr_t atomic_caller;

// The state of the counted block this OS thread runs; null outside one, which every hook tests
// first, inline (access_hooks.cpp): the graded runs' accesses cost a call, a thread-local load
// and a branch each.
struct BlockCounting;
extern __thread BlockCounting* counted_block;

// A counted launch of `launched` blocks whose counter heard from fewer: kernel code changed what
// tells the scheduler a block is counted. Reported as "counting_incomplete", then the run ends.
[[noreturn]] void report_uncounted_blocks(const LaunchCounter& launch, uint64_t launched);

// An access by instrumented code (access_hooks.cpp), counted when `counted_block` is set; `pc`,
// the place of the access (the hook's return address), names it in a report.
void note_access(uintptr_t address, uint64_t bytes, bool store, uintptr_t pc = 0);

// An access to the watched data (watched_data.h) that faulted: counted as global memory, `bytes`
// as the faulting instruction's operand says, unless the instrumentation announced it (its last
// counted access of the same kind, load or store, covers `address`: counted already). Kept apart
// as the block's unannounced accesses (LaunchCounter::add). Called from the fault handler, so it
// takes no lock and allocates nothing.
// Only an announcement that lies inside the watched data [watched_begin, watched_end) counts: one
// that reaches in from other memory (a counting memmove from a __constant__ variable up across
// the student's data, say) would cover accesses it never paid for.
void note_watched_access(uintptr_t address, uint64_t bytes, bool store, uintptr_t watched_begin,
                         uintptr_t watched_end);
// Another CUDA thread runs from here: what the last one announced covers none of its accesses.
void forget_announced_accesses();
// The running block's CUDA thread `thread` (its index in the block) makes the accesses from here.
// No-op when not counting.
void set_counted_thread(unsigned thread);

// What last_launch_access_counts() answers on this OS thread.
void clear_last_launch_counts(bool counting);
void set_last_launch_counts(const AccessCounts& counts);

}  // namespace emu::detail
