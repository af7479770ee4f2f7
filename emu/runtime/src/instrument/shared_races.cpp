#include "shared_races.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "diagnostics.h"
#include "labkit_emu/device_functions.h"

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
  pending_ = PendingWrite{};
  excused_ = ExcusedRead{};
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

SharedRaceRecord::Region SharedRaceRecord::add_region(size_t bytes, bool dynamic) {
  if (cells_ == nullptr || bytes > kMaxBytes - used_) return Region{kNone, bytes, dynamic};
  used_ += bytes;
  return Region{used_ - bytes, bytes, dynamic};
}

bool SharedRaceRecord::block_barrier(Race& race) {
  if (settle(race)) return true;
  ++phase_;
  return false;
}

bool SharedRaceRecord::warp_barrier(unsigned warp, Race& race) {
  if (settle(race)) return true;
  if (warp < kMaxWarps) ++warp_phase_[warp];
  return false;
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

void SharedRaceRecord::describe(const Access& other, const Access& me, bool other_wrote, bool wrote,
                                const Region& region, size_t offset, Race& race) {
  race.thread = me.thread;
  race.wrote = wrote;
  race.pc = me.pc;
  race.other_thread = other.thread;
  race.other_wrote = other_wrote;
  race.other_pc = other.pc;
  race.offset = offset;
  race.region_bytes = region.bytes;
  race.dynamic = region.dynamic;
}

bool SharedRaceRecord::settle(Race& race) {
  if (excused_.active) {  // the thread's next event was no atomic on the word: the read raced
    race = excused_.race;
    excused_ = ExcusedRead{};
    return true;
  }
  if (!pending_.active) return false;
  const PendingWrite done = pending_;
  pending_ = PendingWrite{};
  const auto* now = reinterpret_cast<const unsigned char*>(done.address);
  for (size_t i = 0; i < sizeof done.before; ++i)
    if (done.compared[i] && now[i] != done.before[i]) {
      race = done.race;
      return true;
    }
  return false;
}

bool SharedRaceRecord::access(uintptr_t address, const Region& region, size_t offset, size_t bytes,
                              unsigned thread, bool store, bool atomic, uintptr_t pc, Race& race) {
  if (cells_ == nullptr || region.place == kNone || offset >= region.bytes) return false;
  const size_t place = region.place + offset;
  // A read excused as an atomicCAS loop's first is one only where the same thread's next access
  // is an atomic one of the word (threads switch only at barriers, so nothing comes between).
  if (excused_.active && excused_.thread == thread && atomic && place <= excused_.place &&
      excused_.place < place + bytes)
    excused_ = ExcusedRead{};
  if (settle(race)) return true;
  const unsigned warp = warp_of(thread);
  const uint32_t warp_phase = warp < kMaxWarps ? warp_phase_[warp] : 0;
  const Access me{phase_, warp_phase, static_cast<uint16_t>(thread), atomic, pc};
  const size_t end = std::min(bytes, region.bytes - offset);
  for (size_t i = 0; i < end; ++i) {
    Cell& cell = cells_[place + i];
    // A read meets the last write; a write meets the reads, and the last write (settle). A plain
    // read of a word an atomic function wrote is excused where the reading thread's next access
    // is an atomic one of it: the CUDA Programming Guide's atomicCAS loops start so
    // (`int old = *address;`), and the loop corrects what it read.
    if (!store && conflicts(cell.write, thread, warp_phase, atomic)) {
      Race& said = cell.write.atomic ? excused_.race : race;
      describe(cell.write, me, true, false, region, offset + i, said);
      if (!cell.write.atomic) return true;
      if (!excused_.active) excused_.place = place + i;
      excused_.active = true;
      excused_.thread = thread;
    }
    if (store) {
      for (const Access& r : cell.read)
        if (conflicts(r, thread, warp_phase, atomic)) {
          describe(r, me, false, true, region, offset + i, race);
          return true;
        }
      // Another thread's write: the bytes as they are before this one (access() runs just before
      // the access itself), compared once it is done; past the first kCompared, a race outright.
      if (conflicts(cell.write, thread, warp_phase, atomic)) {
        if (i >= kCompared) {
          describe(cell.write, me, true, true, region, offset + i, race);
          return true;
        }
        if (!pending_.active)
          describe(cell.write, me, true, true, region, offset + i, pending_.race);
        pending_.active = true;
        pending_.address = address;
        pending_.compared[i] = true;
        pending_.before[i] = reinterpret_cast<const unsigned char*>(address)[i];
      }
      cell.write = me;
    } else {
      note_read(cell, me);
    }
  }
  return false;
}

namespace {
// CUDA thread `linear` of the running block, as threadIdx would hold it.
uint3 thread_index(unsigned linear) {
  const unsigned x = blockDim.x == 0 ? 1 : blockDim.x, y = blockDim.y == 0 ? 1 : blockDim.y;
  return uint3{linear % x, linear / x % y, linear / (x * y)};
}

// One report even when several OS threads' blocks find one at once; the others wait for _exit.
void report_once() {
  static std::atomic<bool> reporting{false};
  if (reporting.exchange(true)) {
    for (;;) pause();
  }
}
}  // namespace

void report_shared_race(const char* kernel, const SharedRaceRecord::Race& race) {
  report_once();
  JsonLine line("shared_race");
  line.str("kernel", kernel).dims("block", blockIdx).dims("thread", thread_index(race.thread));
  line.str("access", race.wrote ? "write" : "read");
  if (race.pc != 0) line.hex("pc", race.pc - 1);  // in the call of the hook: addr2line's line
  line.dims("other_thread", thread_index(race.other_thread));
  line.str("other_access", race.other_wrote ? "write" : "read");
  if (race.other_pc != 0) line.hex("other_pc", race.other_pc - 1);
  line.str("memory", race.dynamic ? "dynamic" : "static");
  line.num("offset", static_cast<long long>(race.offset));
  line.num("bytes", static_cast<long long>(race.region_bytes));
  line.num("same_warp", race.thread / 32 == race.other_thread / 32 ? 1 : 0);
  char human[200];
  std::snprintf(human, sizeof human,
                "shared_race: threads %u and %u of a block of kernel %s touch one byte of shared "
                "memory with no barrier between them",
                race.other_thread, race.thread, kernel);
  emit(line, human);
  _exit(kFatalExitCode);
}

void report_shared_record_full(const char* kernel, unsigned arrays, size_t bytes) {
  report_once();
  JsonLine line("shared_record_full");
  line.str("kernel", kernel).dims("block", blockIdx);
  line.num("arrays", arrays).num("bytes", static_cast<long long>(bytes));
  char human[200];
  std::snprintf(human, sizeof human,
                "shared_record_full: kernel %s has more __shared__ arrays or bytes in a block "
                "than the CPU backend follows",
                kernel);
  emit(line, human);
  _exit(kFatalExitCode);
}

}  // namespace emu::detail
