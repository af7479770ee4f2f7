// The student's writable data, unreadable while a counted launch runs
// (labkit_emu/access_counts.h, watch_during_counted_launches).
//
// g++'s AddressSanitizer instrumentation, which the counts come from, leaves out an access to a
// named variable at an offset the compiler can prove in bounds (`Arows[7].v[3]`, or a copy of a
// whole struct from a table of functions each reading one row). Operands staged in a `__device__`
// array and read back that way were loads no count saw. So the pages of the student's data
// (.data and .bss, which labgrade's link gathers into pages of their own) are made inaccessible
// while a block of the launch runs (a sample of them: watch_block): every access faults, the
// handler counts it (the instruction's memory operand gives its size; an access the instrumentation
// already counted is not counted twice), opens the page, and single-steps the instruction (the trap
// flag), after which the page is closed again. A step opens a page to the whole process, so a
// watched launch runs on one OS thread.
#pragma once
#include <signal.h>

#include <cstdint>
#include <utility>

namespace emu::detail {

// Whether a range is watched (watch_during_counted_launches was called).
bool data_is_watched();
// The watched range, [begin, end) ({0, 0} when none).
std::pair<uintptr_t, uintptr_t> watched_range();

// Around one counted launch of `launched_blocks` blocks: a fresh random choice of the blocks that
// are sampled (watch_block).
class WatchedLaunch {
 public:
  explicit WatchedLaunch(uint64_t launched_blocks);
  ~WatchedLaunch();
  WatchedLaunch(const WatchedLaunch&) = delete;
  WatchedLaunch& operator=(const WatchedLaunch&) = delete;
};

// Every access to a watched page costs a fault, the instrumented ones too, so only a sample of a
// launch's blocks runs watched: block 0 and kWatchedBlocks - 1 others drawn at random for each
// launch (no code of the student's can know which); the unannounced accesses they make are scaled
// up to every block (LaunchCounter::total). A kernel hiding loads in most blocks is caught in a
// sampled one. True, with the pages closed, when block `block` of the armed launch is one of the
// sample; unwatch_block() opens them again after it. Nothing else about a sampled block may
// differ where the kernel can see it: every CUDA thread of every block starts on a cleared stack
// (fiber.h), so that none can read what another left there (a GPU's threads share no stack) and
// no block can tell it is sampled by a clean stack.
inline constexpr unsigned kWatchedBlocks = 5;
bool watch_block(unsigned long long block);
void unwatch_block();

// From the SIGSEGV handler: true when the fault was an access to the watched data during a
// watched launch, counted and stepped over (the handler then returns); false for any other fault.
bool on_watched_fault(const siginfo_t* info, void* context);

}  // namespace emu::detail
