// Device allocations. Each one is its own mapping whose last byte touches a PROT_NONE page, so an
// access even one byte past the end faults (and faults.cpp names the buffer), with a canary zone
// before the start that is checked after every launch and at cudaFree.
//
//   [64 KiB guard][canary ... | user bytes][1 MiB guard]
//
// The user pointer is therefore aligned to the largest power of two (up to 256) that divides the
// size, not always to 256 as on a GPU: the price of catching off-by-one reads exactly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace emu::detail {

enum class MemoryKind { device, managed, pinned_host };

struct Allocation {
  char* user = nullptr;
  size_t bytes = 0;
  MemoryKind kind = MemoryKind::device;
  char* map_base = nullptr;  // the whole mapping, guards included
  size_t map_bytes = 0;

  bool device_side() const { return kind != MemoryKind::pinned_host; }
};

void* allocate(size_t bytes, MemoryKind kind);
// False when `ptr` is not the start of a live allocation of that family (device vs pinned host).
bool release(void* ptr, bool pinned_host);
void release_all();

// The allocation holding [ptr, ptr + bytes); a pointer one past the end counts as inside when
// bytes == 0 (kernels receive end pointers).
std::optional<Allocation> find_allocation(const void* ptr, size_t bytes = 0);

// Checks every canary zone and reports guard_overwritten for each damaged one (then repaints it,
// so that each overwrite is reported once). Returns the number of damaged allocations.
int check_canaries();

// For the fault handler (no locks, no heap): the allocation whose mapping holds `address`.
bool find_allocation_for_fault(uintptr_t address, Allocation* out);

size_t bytes_in_use();

// Every live allocation as [user, user + bytes), sorted by address (for counting accesses).
std::vector<std::pair<uintptr_t, uintptr_t>> allocation_ranges();
}  // namespace emu::detail
