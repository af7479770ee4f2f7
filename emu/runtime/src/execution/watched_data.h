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

#include <cstddef>

#include <cstdint>

namespace emu::detail {

// Whether a range is watched (watch_during_counted_launches was called).
bool data_is_watched();

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
// launch's blocks runs with every page closed: block 0 and kWatchedBlocks - 1 others drawn at
// random for each launch (no code of the student's can know which); the unannounced accesses they
// make to pages never written are scaled up to every block (LaunchCounter::total). A kernel hiding
// loads in most blocks is caught in a sampled one. True, with the pages closed, when block `block`
// of the armed launch is one of the sample; unwatch_block() gives them back the protection of the
// blocks outside the sample after it. A sampled block is sampled even where no data is watched:
// each of its CUDA threads starts on a cleared stack (scheduler.cpp), so that none can read what
// another left there (a GPU's threads share no stack).
//
// Written pages. A sample cannot see a kernel that does its hidden work in one block of many (the
// whole product computed by the last block, say). But operands can only be in the student's data
// if something put them there after the inputs were drawn: a kernel's store, or a copy from device
// memory; what a static initialiser or the record run's host values left there cannot be the
// replay's inputs. So every block outside the sample runs with the pages readable and not
// writable: a store faults, is counted, and marks its page written (so does a copy from device
// memory into the data, note_copy_into_watched_data); a written page stays closed in every block
// of every later counted launch of the process, and each access to it is counted as it is, not
// scaled. Data that only ever is read (a `__device__` scalar set from the host) costs nothing.
inline constexpr unsigned kWatchedBlocks = 5;
bool watch_block(unsigned long long block);
void unwatch_block();

// From the SIGSEGV handler: true when the fault was an access to the watched data during a
// watched launch, counted and stepped over (the handler then returns); false for any other fault.
bool on_watched_fault(const siginfo_t* info, void* context);

// A runtime copy of `bytes` bytes from `src` to `dst`: where it lands in the watched data and its
// source may hold what a kernel computed (`src_allocated`: device, managed or pinned memory; or
// the watched data itself), the pages it writes are marked written (see above). A copy of the
// plan's host values does not: the student's host code never saw the replay's inputs.
void note_copy_into_watched_data(const void* dst, size_t bytes, const void* src, bool src_allocated);

}  // namespace emu::detail
