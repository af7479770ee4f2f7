#include "stack_pages.h"

#include <sys/mman.h>

namespace emu::detail {
namespace {
// Fixed capacity, as guards.cpp: one record per fiber stack (stacks are reused, rarely unmapped).
constexpr int kCapacity = 1 << 16;
constexpr uintptr_t kPage = 4096;  // x86-64's; sysconf is not async-signal-safe
StackPages records[kCapacity];
std::atomic<int> reserved{0};
}  // namespace

StackPages* register_stack_pages(uintptr_t floor, uintptr_t top, uintptr_t open_bottom) {
  // Pools of several OS threads register at once: a slot is taken first, then filled, and made
  // visible to the handler last (top stays 0, matching nothing, until then).
  const int slot = reserved.fetch_add(1);
  if (slot >= kCapacity) return nullptr;
  StackPages& r = records[slot];
  r.floor.store(floor, std::memory_order_relaxed);
  r.open_bottom.store(open_bottom, std::memory_order_relaxed);
  r.top.store(top, std::memory_order_release);
  return &r;
}

void retire_stack_pages(StackPages* pages) {
  if (pages != nullptr) pages->top.store(0, std::memory_order_release);
}

bool open_stack_pages(uintptr_t address) {
  int n = reserved.load(std::memory_order_acquire);
  if (n > kCapacity) n = kCapacity;
  for (int i = 0; i < n; ++i) {
    StackPages& r = records[i];
    if (address >= r.top.load(std::memory_order_acquire) ||
        address < r.floor.load(std::memory_order_relaxed))
      continue;
    uintptr_t bottom = r.open_bottom.load(std::memory_order_acquire);
    // Already open: the fault has another cause (executing the stack, say), reported as usual.
    if (address >= bottom) return false;
    const uintptr_t page = address & ~(kPage - 1);
    if (mprotect(reinterpret_cast<void*>(page), bottom - page, PROT_READ | PROT_WRITE) != 0)
      return false;
    // Lowered, never raised: another OS thread touching this stack may have opened more meanwhile.
    while (page < bottom && !r.open_bottom.compare_exchange_weak(bottom, page)) {
    }
    return true;
  }
  return false;
}
}  // namespace emu::detail
