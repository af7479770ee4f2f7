// Fiber stacks opened on demand. A fiber's stack starts with only a small window at its top
// readable and writable; the rest, down to the guard page, is PROT_NONE. A thread that goes deeper
// faults, and the SIGSEGV handler opens the pages from there up (open_stack_pages). So the part a
// fiber has ever used stays small, and clearing it before each CUDA thread (fiber.h) stays cheap.
// Lock-free, heap-free reads: the handler may interrupt any code on the fiber, the kit's own too.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace emu::detail {
// One stack's record: [floor, top) is the stack above its guard page, [open_bottom, top) the part
// opened so far. Records live in a static table and are never freed, only retired (top 0).
struct StackPages {
  std::atomic<uintptr_t> floor{0};
  std::atomic<uintptr_t> top{0};
  std::atomic<uintptr_t> open_bottom{0};
};

// Records a stack whose pages below `open_bottom` (down to `floor`) are PROT_NONE. Null when the
// table is full: the caller then opens the whole stack itself.
StackPages* register_stack_pages(uintptr_t floor, uintptr_t top, uintptr_t open_bottom);
// The stack is unmapped: its record no longer matches any address.
void retire_stack_pages(StackPages* pages);

// From the SIGSEGV handler: when `address` lies in the closed part of a registered stack, opens
// the pages from its page up to the open bottom and returns true (the access is then retried).
// A fault in a guard page is not opened: it stays a stack overflow.
bool open_stack_pages(uintptr_t address);
}  // namespace emu::detail
