#include "race_annotations.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "access_counter.h"
#include "labkit_emu/launch.h"

// ThreadSanitizer's fiber and synchronisation interface (sanitizer/tsan_interface.h), declared
// weak so that the runtime links without libtsan; they are non-null only under -fsanitize=thread.
extern "C" {
__attribute__((weak)) void* __tsan_get_current_fiber();
__attribute__((weak)) void* __tsan_create_fiber(unsigned flags);
__attribute__((weak)) void __tsan_destroy_fiber(void* fiber);
__attribute__((weak)) void __tsan_switch_to_fiber(void* fiber, unsigned flags);
__attribute__((weak)) void __tsan_set_fiber_name(void* fiber, const char* name);
__attribute__((weak)) void __tsan_acquire(void* addr);
__attribute__((weak)) void __tsan_release(void* addr);
__attribute__((weak)) void AnnotateIgnoreWritesBegin(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreWritesEnd(const char* file, int line);
}

namespace emu::detail {
namespace {
// __tsan_switch_to_fiber_no_sync: the switch itself orders nothing.
constexpr unsigned kNoSync = 1;
}  // namespace

RaceAnnotations::RaceAnnotations() {
  active_ = __tsan_create_fiber != nullptr && __tsan_switch_to_fiber != nullptr &&
            __tsan_get_current_fiber != nullptr && __tsan_acquire != nullptr &&
            __tsan_release != nullptr;
}

RaceAnnotations::~RaceAnnotations() {
  if (!active_) return;
  for (void* fiber : thread_fibers_) __tsan_destroy_fiber(fiber);
}

void RaceAnnotations::switch_to(void* fiber) {
  if (fiber == current_) return;
  __tsan_switch_to_fiber(fiber, kNoSync);
  current_ = fiber;
}

void RaceAnnotations::begin_block(unsigned threads, uint3 block, dim3 block_dim) {
  if (!active_) return;
  scheduler_fiber_ = current_ = __tsan_get_current_fiber();
  while (thread_fibers_.size() < threads) thread_fibers_.push_back(__tsan_create_fiber(0));
  if (__tsan_set_fiber_name != nullptr) {
    // TSan's report names the two threads of a race by these.
    char name[96];
    for (unsigned t = 0; t < threads; ++t) {
      std::snprintf(name, sizeof name, "CUDA thread (%u,%u,%u) of block (%u,%u,%u)",
                    t % block_dim.x, t / block_dim.x % block_dim.y,
                    t / (block_dim.x * block_dim.y), block.x, block.y, block.z);
      __tsan_set_fiber_name(thread_fibers_[t], name);
    }
  }
  const unsigned warps = (threads + 31) / 32;
  warp_barrier_.assign(warps, BarrierSync{});
  warp_epoch_.assign(warps, 0);
  block_epoch_ = 0;
  __tsan_release(&block_start_);
}

void RaceAnnotations::enter_thread(unsigned thread) {
  if (active_) switch_to(thread_fibers_[thread]);
}

void RaceAnnotations::thread_started() {
  if (active_) __tsan_acquire(&block_start_);
}

void RaceAnnotations::thread_finished() {
  if (active_) __tsan_release(&block_end_);
}

void RaceAnnotations::enter_scheduler() {
  if (active_) switch_to(scheduler_fiber_);
}

void RaceAnnotations::end_block() {
  if (!active_) return;
  switch_to(scheduler_fiber_);
  __tsan_acquire(&block_end_);
}

uint64_t RaceAnnotations::arrive_block_barrier() {
  if (active_) __tsan_release(&block_barrier_.generation[block_epoch_ & 1]);
  return block_epoch_;
}

void RaceAnnotations::depart_block_barrier(uint64_t ticket) {
  if (active_) __tsan_acquire(&block_barrier_.generation[ticket & 1]);
}

uint64_t RaceAnnotations::arrive_warp_barrier(unsigned warp) {
  if (!active_) return 0;
  __tsan_release(&warp_barrier_[warp].generation[warp_epoch_[warp] & 1]);
  return warp_epoch_[warp];
}

void RaceAnnotations::depart_warp_barrier(unsigned warp, uint64_t ticket) {
  if (active_) __tsan_acquire(&warp_barrier_[warp].generation[ticket & 1]);
}

void RaceAnnotations::abandon_thread(unsigned thread) {
  if (!active_ || thread >= thread_fibers_.size()) return;
  __tsan_destroy_fiber(thread_fibers_[thread]);
  thread_fibers_[thread] = __tsan_create_fiber(0);
}

namespace {
// Writes ThreadSanitizer is told to leave out, for one scope: the emulator's, not a CUDA thread's.
class IgnoredWrites {
 public:
  IgnoredWrites()
      : on_(AnnotateIgnoreWritesBegin != nullptr && AnnotateIgnoreWritesEnd != nullptr) {
    if (on_) AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  }
  ~IgnoredWrites() {
    if (on_) AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  }
  IgnoredWrites(const IgnoredWrites&) = delete;
  IgnoredWrites& operator=(const IgnoredWrites&) = delete;

 private:
  bool on_;
};
}  // namespace

void poison_shared(void* bytes, size_t size) {
  // Poison is not a CUDA thread's write: under ThreadSanitizer it would race with every other
  // thread's first read of the variable.
  {
    IgnoredWrites emulators_own;
    std::memset(bytes, 0xFF, size);
  }
  note_shared_array(bytes, size);  // so that counted accesses to it are known as shared
}

void* allocate_shared_storage(size_t bytes, size_t alignment) {
  // ThreadSanitizer's malloc counts a fresh block as written by the caller (the CUDA thread that
  // first declared the array) unless writes are ignored: every other thread's use would race.
  IgnoredWrites emulators_own;
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;  // aligned_alloc's rule
  return std::aligned_alloc(alignment, rounded > 0 ? rounded : alignment);
}

}  // namespace emu::detail
