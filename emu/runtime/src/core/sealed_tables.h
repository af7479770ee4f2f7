// What the CPU backend's count of a launch rests on, kept where no kernel can write it. A kernel
// is native code in the emulator's process, and nothing checks the accesses of an uncounted
// launch (their hooks return at once), so a kernel there could change any table in ordinary
// memory before a counted launch reads it: widen the list of __constant__ ranges until every
// access is let through uncounted (red-team case r3_uncounted_launch_turns_off_own_memory_check),
// drop A from the device buffers, or rewrite the counts of a launch that has ended
// (r3_later_launch_rewrites_its_launch_record). So these tables live in pages that are read-only
// but for the moment the emulator's own host-side code changes them (no kernel code runs then:
// launches are synchronous), and the record of where they are lives on a page of its own, closed
// the same way before any constructor of the student's runs.
//
// Each table is an array of fixed-size items, in the order they were added.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace emu::detail {

enum class SealedTable : unsigned {
  kAllocations,        // device buffers, [begin, end) (memory.cpp)
  kGlobalVariables,    // count_as_global_memory's ranges
  kConstantVariables,  // count_as_constant_memory's ranges
  kWatchedData,        // the one range watch_during_counted_launches named (watched_data.h)
  kLaunchCounts,       // each counted launch's AccessCounts (sealed_counts_of_case)
  kCount
};

// Appends an item of `bytes` (each table's items are all of one size).
void sealed_append(SealedTable table, const void* item, size_t bytes);
// Removes every item whose first word equals `key` (a range by its begin).
void sealed_erase_first_word(SealedTable table, uintptr_t key);
void sealed_clear(SealedTable table);
// The items, as stored; null when there are none. `count` is set to how many. In place, for the
// signal handler (which may take no lock): an append on another thread may move them.
const void* sealed_items(SealedTable table, size_t& count);
// The items from the `first` on, copied under the writers' lock.
std::vector<unsigned char> sealed_copy(SealedTable table, size_t first);

// One number kept sealed: the index in kLaunchCounts where the running case's counts begin.
void set_sealed_case_begin(uint64_t index);
uint64_t sealed_case_begin();

// The ranges of a range table, sorted by begin.
std::vector<std::pair<uintptr_t, uintptr_t>> sealed_ranges(SealedTable table);

}  // namespace emu::detail
