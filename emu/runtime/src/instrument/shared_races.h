// A missing __syncthreads() found from the accesses themselves, in a counted block
// (access_counter.h): every byte of the block's shared memory remembers which CUDA thread last
// wrote it and up to two that read it since the block's last barrier. A read of a byte another
// thread wrote, or a write of a byte another thread read, with no barrier between them, is a race
// whatever order the threads ran in: a kernel that watches the order it runs in (and keeps its
// barrier only when it is not the launch order) cannot hide it, as it can from the reverse and
// random order runs (red-team case r7_forward_safe_race_order_probe_tsan_macro).
//
// What is not a race here, as on a GPU: two atomic accesses (CUDA's atomic functions do their
// work in the runtime, device_atomics.cpp, which says so); threads of one warp separated by
// __syncwarp or a shuffle (the scheduler's warp barrier); a thread and itself; two plain writes of
// the same value (every thread storing the same flag is common and harmless). Shuffles and votes
// order no memory (only __syncwarp does, in CUDA's memory model), so they do not order lanes here
// either.
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
  // The most shared bytes of one block recorded.
  static constexpr size_t kMaxBytes = size_t{256} << 10;
  static constexpr size_t kNone = ~size_t{0};
  static constexpr unsigned kMaxWarps = 32;

  // Two accesses of one byte with no barrier between them: the earlier ("other") and the later.
  struct Race {
    unsigned thread = 0, other_thread = 0;  // indices in the block
    bool wrote = false, other_wrote = false;
    uintptr_t pc = 0, other_pc = 0;
    size_t offset = 0, region_bytes = 0;  // the byte, in its region
    bool dynamic = false;                 // the region is the dynamic shared memory
  };

  // A fresh record for the block about to run (none of a previous block's accesses remain).
  // False when the mapping could not be made: nothing is recorded then.
  bool begin_block();
  void end_block();
  // The mapping, to be named among the memory kernels may not touch; {0, 0} when there is none.
  std::pair<uintptr_t, uintptr_t> mapping() const;
  // A __shared__ array, or the dynamic shared memory: `place`, its first byte's place in the
  // record, kNone where it has none.
  struct Region {
    size_t place = kNone, bytes = 0;
    bool dynamic = false;
  };
  // A region of `bytes`; its place is kNone when the record is full (more bytes than a GPU's
  // block can have) or was never made.
  Region add_region(size_t bytes, bool dynamic);
  bool made() const { return cells_ != nullptr; }
  // Barriers. Each first settles the write that met another thread's write (settle).
  bool block_barrier(Race& race);
  bool warp_barrier(unsigned warp, Race& race);
  // An access of `bytes` at `address`, `offset` bytes into `region` (add_region's, with a place),
  // which bounds it, by thread `thread`. True, with `race`, at the first race.
  bool access(uintptr_t address, const Region& region, size_t offset, size_t bytes, unsigned thread,
              bool store, bool atomic, uintptr_t pc, Race& race);
  // Two plain writes of one byte by two threads are a race where the second changed it (every
  // thread storing the same flag is common and harmless): the bytes are compared once the second
  // write is done, at the record's next event. True, with `race`, where they changed; or where a
  // read excused as an atomicCAS loop's first (ExcusedRead) was followed by something else.
  bool settle(Race& race);

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
  // A write that met another thread's write, in its first kCompared bytes (a copy may be longer:
  // a conflict past them is a race outright, r33_wide_copy_overwrites_past_sixteen_bytes).
  static constexpr size_t kCompared = 64;
  struct PendingWrite {
    bool active = false;
    uintptr_t address = 0;  // the write's first byte
    unsigned char before[kCompared] = {};
    bool compared[kCompared] = {};  // the bytes another thread wrote
    Race race;
  };
  // A plain read of a word another thread's atomic function wrote, excused until the reading
  // thread's next access: an atomic one of the same word (an atomicCAS loop) clears it, anything
  // else (or a barrier, or the block's end) makes it the race it was.
  struct ExcusedRead {
    bool active = false;
    unsigned thread = 0;
    size_t place = 0;
    Race race;
  };
  bool conflicts(const Access& a, unsigned thread, uint32_t warp_phase, bool atomic) const;
  void note_read(Cell& cell, const Access& me) const;
  static void describe(const Access& other, const Access& me, bool other_wrote, bool wrote,
                       const Region& region, size_t offset, Race& race);

  Cell* cells_ = nullptr;
  size_t used_ = 0;
  uint32_t phase_ = 1;
  uint32_t warp_phase_[kMaxWarps] = {};
  PendingWrite pending_;
  ExcusedRead excused_;
};

// The race, reported as "shared_race" with both accesses, in kernel `kernel` of the running
// block; then the run ends.
[[noreturn]] void report_shared_race(const char* kernel, const SharedRaceRecord::Race& race);
// The block's shared memory outgrew the record (more __shared__ arrays or bytes than a GPU's
// block can have), at array number `arrays` of `bytes`: reported as "shared_record_full"; then
// the run ends.
[[noreturn]] void report_shared_record_full(const char* kernel, unsigned arrays, size_t bytes);

}  // namespace emu::detail
