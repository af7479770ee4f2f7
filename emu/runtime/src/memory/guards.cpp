#include "guards.h"

#include <atomic>

namespace emu::detail {
namespace {
struct Range {
  uintptr_t begin, end;
  GuardKind kind;
};
// Fixed capacity: guards are only added (stacks are reused, never freed), a few per OS thread
// plus one per fiber stack. Ranges past the capacity are simply not classified.
constexpr int kCapacity = 1 << 16;
Range ranges[kCapacity];
std::atomic<int> count{0};
}  // namespace

void register_guard(uintptr_t begin, uintptr_t end, GuardKind kind) {
  int i = count.fetch_add(1);
  if (i >= kCapacity) return;
  ranges[i] = Range{begin, end, kind};
  std::atomic_thread_fence(std::memory_order_release);
}

GuardKind find_guard(uintptr_t address) {
  int n = count.load(std::memory_order_acquire);
  if (n > kCapacity) n = kCapacity;
  for (int i = 0; i < n; ++i) {
    if (address >= ranges[i].begin && address < ranges[i].end) return ranges[i].kind;
  }
  return GuardKind::none;
}
}  // namespace emu::detail
