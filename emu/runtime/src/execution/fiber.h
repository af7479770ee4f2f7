// Fibers on Boost.Context's fcontext (a few ns per switch; ucontext's swapcontext makes a system
// call each time and is ~50x slower). A stack is an mmap with a PROT_NONE guard page below it, so
// a runaway recursion faults and is reported as stack_overflow instead of corrupting memory.
//
// Every CUDA thread starts on a stack where nothing an earlier thread left can be read (a GPU's
// threads share no stack): in every block of every launch, counted or not, the runner clears the
// stack below its own frame before each thread (clear_stack_below_caller). A cleared stack only in
// the blocks that count accesses would let a kernel find the counted run by reading an
// uninitialised local (red-team r7_stale_stack_finds_the_counted_run). To keep that clearing cheap,
// a stack is opened on demand (memory/stack_pages.h): only a small window at its top is mapped
// readable at first, deeper pages open when a thread first touches them, and only the part ever
// opened is cleared.
#pragma once
#include <boost/context/detail/fcontext.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "stack_pages.h"

namespace emu::detail {
namespace ctx = boost::context::detail;

struct Fiber {
  char* stack_top = nullptr;
  size_t stack_bytes = 0;
  ctx::fcontext_t context = nullptr;
  // Its record of opened pages; null when the record table was full and the stack is open whole.
  StackPages* pages = nullptr;

  // The lowest readable address of the stack (above the guard page): what a thread could read.
  uintptr_t open_bottom() const {
    return pages != nullptr ? pages->open_bottom.load(std::memory_order_relaxed)
                            : reinterpret_cast<uintptr_t>(stack_top - stack_bytes);
  }
};

// The fibers of one OS thread, reused from block to block and launch to launch.
class FiberPool {
 public:
  explicit FiberPool(size_t stack_bytes) : stack_bytes_(stack_bytes) {}
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;
  ~FiberPool();

  // A fiber whose next resumption enters `entry` on a fresh frame.
  Fiber* acquire(void (*entry)(ctx::transfer_t));
  void release(Fiber* fiber) { free_.push_back(fiber); }
  // Frames start at the very top of each stack, not kFirstPageInUse above its first page's bottom
  // (fiber.cpp). For ThreadSanitizer: with the frames lower, its report of a race lost the
  // kernel's frames of the earlier access (a race mutant's report named bits/invoke.h alone,
  // 2026-11-28). Its runs then clear most of a page per thread, and are slow anyway.
  void keep_frames_at_top() { frames_at_top_ = true; }

 private:
  size_t stack_bytes_;
  bool frames_at_top_ = false;
  std::vector<std::unique_ptr<Fiber>> all_;
  std::vector<Fiber*> free_;
};

// Fills [bottom, the caller's return address) with ones: in assembly (fiber.cpp), with no frame of
// its own and no call, so that nothing of it lies in what it clears.
extern "C" void __emu_fill_stack_below_caller(uintptr_t bottom);

// Clears the opened part of `fiber`'s stack below the caller's frame (the caller runs on it), where
// the CUDA thread it starts next will have its frames: whatever the last thread on the stack left
// there (a stash of operands shared between threads, which no GPU allows) is gone. Inline, so that
// the fill stops just below the caller's own frame.
inline __attribute__((always_inline)) void clear_stack_below_caller(const Fiber& fiber) {
  __emu_fill_stack_below_caller(fiber.open_bottom());
}
}  // namespace emu::detail
