// ThreadSanitizer support for the scheduler. A lab built with -fsanitize=thread (labgrade's
// --tsan) links libtsan, and then these annotations tell it what CUDA means by "thread" and by
// "ordered":
//   - each CUDA thread of a block is a TSan fiber of its own, even when the scheduler runs
//     several of them one after the other on one OS thread;
//   - switching between them implies no ordering at all (__tsan_switch_to_fiber's no-sync flag):
//     the scheduler's sequential order is an accident of emulation, not a guarantee;
//   - what does order them is a barrier: each thread releases into the barrier as it arrives and
//     acquires from it as it leaves, so everything before the barrier in any thread
//     happens-before everything after it in every thread;
//   - a block's start (after the scheduler poisons shared memory) happens-before its threads,
//     and its threads happen-before its end, so blocks that reuse the same shared memory and
//     stacks one after another on an OS thread are ordered, as on a GPU where a block's
//     resources are handed on only after it has finished.
// Two accesses from different CUDA threads of a block with no barrier between them, one a write,
// are then a data race in TSan's report, with both source lines: the missing __syncthreads().
//
// Without libtsan the entry points are null (weak symbols) and every call here returns at once.
#pragma once
#include <cstdint>
#include <vector>

#include "labkit_emu/vector_types.h"

namespace emu::detail {

class RaceAnnotations {
 public:
  RaceAnnotations();
  RaceAnnotations(const RaceAnnotations&) = delete;
  RaceAnnotations& operator=(const RaceAnnotations&) = delete;
  ~RaceAnnotations();

  // True when the program runs under ThreadSanitizer.
  bool active() const { return active_; }

  // On the scheduler, once the block's shared memory is ready and before any thread runs.
  void begin_block(unsigned threads, uint3 block, dim3 block_dim);
  // Just before CUDA thread `thread` runs (first start or resumption), on whatever stack.
  void enter_thread(unsigned thread);
  // In the thread itself, before it runs any kernel code.
  void thread_started();
  // In the thread itself, after its kernel code returned.
  void thread_finished();
  // Just before control goes back to the scheduler's own stack.
  void enter_scheduler();
  // On the scheduler, after every thread of the block is done.
  void end_block();
  // On the scheduler: thread `thread` was left waiting at a divergent barrier and will never
  // finish, so its fiber (with the kernel frames TSan still holds for it) is replaced.
  void abandon_thread(unsigned thread);

  // Barriers, in the waiting thread: `arrive` before it stops (returns a ticket), `depart` with
  // that ticket once it is released. `released` on the scheduler when the barrier opens.
  uint64_t arrive_block_barrier();
  void depart_block_barrier(uint64_t ticket);
  void block_barrier_released() {
    if (active_) ++block_epoch_;
  }
  uint64_t arrive_warp_barrier(unsigned warp);
  void depart_warp_barrier(unsigned warp, uint64_t ticket);
  void warp_barrier_released(unsigned warp) {
    if (active_) ++warp_epoch_[warp];
  }

 private:
  // A barrier's two synchronisation objects, used in turn: a thread that has already left
  // barrier generation g and arrives at g+1 releases into the other one, so a thread still
  // leaving g cannot acquire what the first did after g.
  struct BarrierSync {
    char generation[2];
  };

  void switch_to(void* fiber);

  bool active_ = false;
  void* scheduler_fiber_ = nullptr;  // the OS thread's own TSan state
  void* current_ = nullptr;
  std::vector<void*> thread_fibers_;  // one per CUDA thread of a block, reused block to block
  char block_start_ = 0;
  char block_end_ = 0;
  BarrierSync block_barrier_{};
  uint64_t block_epoch_ = 0;
  std::vector<BarrierSync> warp_barrier_;
  std::vector<uint64_t> warp_epoch_;
};

// Fresh storage for a __shared__ array (static_shared), `alignment` a power of two of 16 or more:
// the allocation is the emulator's, not a write of the CUDA thread that asked for it.
void* allocate_shared_storage(size_t bytes, size_t alignment);

}  // namespace emu::detail
