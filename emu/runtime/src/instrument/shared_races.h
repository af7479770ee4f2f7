// A missing __syncthreads() found from the accesses themselves, in a counted block
// (access_counter.h): every byte of the block's shared memory remembers which CUDA thread last
// wrote it and up to two that read it since the block's last barrier. A read of a byte another
// thread wrote, or a write of a byte another thread read, with no barrier between them, is a race
// whatever order the threads ran in: a kernel that watches the order it runs in (and keeps its
// barrier only when it is not the launch order) cannot hide it, as it can from the reverse and
// random order runs (red-team case r7_forward_safe_race_order_probe_tsan_macro).
//
// What is not a race here, as on a GPU: two atomic accesses (atomics.h brackets each atomic
// function); threads of one warp separated by __syncwarp or a shuffle (the scheduler's warp
// barrier); a thread and itself. Two plain writes of one byte are not reported: a kernel that has
// every thread store the same flag is common and harmless, and any read of the byte between them
// or after is.
//
// The record lives in a mapping of its own, made fresh for each counted block and named among the
// memory no kernel may touch (own_memory.h), so neither an uncounted launch nor the counted block
// can edit it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

namespace emu::detail {

class SharedRaceRecord {
 public:
  // The most shared bytes of one block recorded; bytes past it are left out (never a race).
  static constexpr size_t kMaxBytes = size_t{256} << 10;
  static constexpr size_t kNone = ~size_t{0};
  static constexpr unsigned kMaxWarps = 32;

  struct Race {
    unsigned other_thread = 0;  // its index in the block
    bool other_wrote = false;
    uintptr_t other_pc = 0;
    size_t place = 0;  // the byte's place in the record (add_region's, plus its offset)
  };

  // A fresh record for the block about to run (none of a previous block's accesses remain).
  // False when the mapping could not be made: nothing is recorded then.
  bool begin_block();
  void end_block();
  // The mapping, to be named among the memory kernels may not touch; {0, 0} when there is none.
  std::pair<uintptr_t, uintptr_t> mapping() const;
  // A region of `bytes` (a __shared__ array, or the dynamic shared memory): its first byte's place
  // in the record, or kNone when the record is full.
  size_t add_region(size_t bytes);
  void block_barrier() { ++phase_; }
  void warp_barrier(unsigned warp) {
    if (warp < kMaxWarps) ++warp_phase_[warp];
  }
  // An access of `bytes` at `place` (add_region's, plus the offset) by thread `thread`;
  // `region_end` bounds it. The first race it makes, if any.
  bool access(size_t place, size_t bytes, size_t region_end, unsigned thread, bool store,
              bool atomic, uintptr_t pc, Race& race);

 private:
  struct Access {
    uint32_t phase = 0;  // 0: none in this block
    uint32_t warp_phase = 0;
    uint16_t thread = 0;
    bool atomic = false;
    uintptr_t pc = 0;
  };
  struct Cell {
    Access write, read[2];
  };
  bool conflicts(const Access& a, unsigned thread, uint32_t warp_phase, bool atomic) const;
  void note_read(Cell& cell, const Access& me) const;

  Cell* cells_ = nullptr;
  size_t used_ = 0;
  uint32_t phase_ = 1;
  uint32_t warp_phase_[kMaxWarps] = {};
};

}  // namespace emu::detail
