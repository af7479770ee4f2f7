#include "shared_races.h"

#include <sys/mman.h>

#include <algorithm>

namespace emu::detail {

namespace {
constexpr size_t kMappingBytes = SharedRaceRecord::kMaxBytes * sizeof(uint64_t) * 9;
unsigned warp_of(unsigned thread) { return thread / 32; }
}  // namespace

// Whatever `cells_` holds is overwritten, never unmapped: between counted blocks it is memory a
// kernel of an uncounted launch could have changed.
bool SharedRaceRecord::begin_block() {
  static_assert(sizeof(Cell) * kMaxBytes <= kMappingBytes, "the mapping holds every cell");
  // Untouched pages cost nothing: a block with 2 KiB of tiles touches 2 Ki cells.
  void* map = mmap(nullptr, kMappingBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  cells_ = map == MAP_FAILED ? nullptr : static_cast<Cell*>(map);
  used_ = 0;
  phase_ = 1;
  std::fill_n(warp_phase_, kMaxWarps, 0);
  return cells_ != nullptr;
}

void SharedRaceRecord::end_block() {
  if (cells_ != nullptr) munmap(cells_, kMappingBytes);
  cells_ = nullptr;
  used_ = 0;
}

std::pair<uintptr_t, uintptr_t> SharedRaceRecord::mapping() const {
  const auto begin = reinterpret_cast<uintptr_t>(cells_);
  return cells_ == nullptr ? std::pair<uintptr_t, uintptr_t>{0, 0}
                           : std::pair<uintptr_t, uintptr_t>{begin, begin + kMappingBytes};
}

size_t SharedRaceRecord::add_region(size_t bytes) {
  if (cells_ == nullptr || bytes > kMaxBytes - used_) return kNone;
  const size_t place = used_;
  used_ += bytes;
  return place;
}

// Two accesses of one byte in the same barrier phase, by different threads, not both atomic, and
// not threads of one warp with a warp barrier between them.
bool SharedRaceRecord::conflicts(const Access& a, unsigned thread, uint32_t warp_phase,
                                 bool atomic) const {
  if (a.phase != phase_ || a.thread == thread || (a.atomic && atomic)) return false;
  return warp_of(a.thread) != warp_of(thread) || a.warp_phase == warp_phase;
}

// Two readers are kept; a third replaces the second where that keeps threads of two warps (whose
// reads no warp barrier orders), so that a later writer of either warp still meets one.
void SharedRaceRecord::note_read(Cell& cell, const Access& me) const {
  Access* read = cell.read;
  if (read[0].phase != phase_ || read[0].thread == me.thread) {
    if (read[0].phase != phase_) read[1] = Access{};
    read[0] = me;
  } else if (read[1].phase != phase_ || read[1].thread == me.thread ||
             (warp_of(read[0].thread) == warp_of(read[1].thread) &&
              warp_of(me.thread) != warp_of(read[0].thread))) {
    read[1] = me;
  }
}

bool SharedRaceRecord::access(size_t place, size_t bytes, size_t region_end, unsigned thread,
                              bool store, bool atomic, uintptr_t pc, Race& race) {
  if (cells_ == nullptr || place >= region_end) return false;
  const unsigned warp = warp_of(thread);
  const uint32_t warp_phase = warp < kMaxWarps ? warp_phase_[warp] : 0;
  const Access me{phase_, warp_phase, static_cast<uint16_t>(thread), atomic, pc};
  const size_t end = std::min(place + bytes, region_end);
  for (size_t at = place; at < end; ++at) {
    Cell& cell = cells_[at];
    // A read meets the last write; a write meets the reads (two plain writes are let be).
    const Access* other = nullptr;
    if (!store && conflicts(cell.write, thread, warp_phase, atomic)) other = &cell.write;
    for (const Access& r : cell.read)
      if (store && other == nullptr && conflicts(r, thread, warp_phase, atomic)) other = &r;
    if (other != nullptr) {
      race.other_thread = other->thread;
      race.other_wrote = !store;
      race.other_pc = other->pc;
      race.place = at;
      return true;
    }
    if (store) {
      cell.write = me;
    } else {
      note_read(cell, me);
    }
  }
  return false;
}

}  // namespace emu::detail
