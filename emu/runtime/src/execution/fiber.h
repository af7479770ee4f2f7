// Fibers on Boost.Context's fcontext (a few ns per switch; ucontext's swapcontext makes a system
// call each time and is ~50x slower). A stack is an mmap with a PROT_NONE guard page below it, so
// a runaway recursion faults and is reported as stack_overflow instead of corrupting memory.
#pragma once
#include <boost/context/detail/fcontext.hpp>
#include <cstddef>
#include <memory>
#include <vector>

namespace emu::detail {
namespace ctx = boost::context::detail;

struct Fiber {
  char* stack_top = nullptr;
  size_t stack_bytes = 0;
  ctx::fcontext_t context = nullptr;
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

 private:
  size_t stack_bytes_;
  std::vector<std::unique_ptr<Fiber>> all_;
  std::vector<Fiber*> free_;
};

// Clears the part of `fiber`'s stack below the caller's frame (the caller runs on it), where the
// CUDA thread it starts next will have its frames: whatever the last thread on the stack left
// there (a stash of operands shared between threads, which no GPU allows) is gone. Out of line, a
// loop of stores and no call, so that no frame of its own lies in what it clears.
void clear_stack_below_caller(const Fiber& fiber);
}  // namespace emu::detail
