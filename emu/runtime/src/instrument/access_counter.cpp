#include "access_counter.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "config.h"
#include "diagnostics.h"
#include "labkit_emu/device_functions.h"
#include "memory.h"
#include "sealed_tables.h"
#include "shared_races.h"

namespace emu {

AccessCounts& AccessCounts::operator+=(const AccessCounts& o) {
  global_loads += o.global_loads;
  global_load_bytes += o.global_load_bytes;
  global_stores += o.global_stores;
  global_store_bytes += o.global_store_bytes;
  warp_global_load_bytes += o.warp_global_load_bytes;
  shared_loads += o.shared_loads;
  shared_load_bytes += o.shared_load_bytes;
  shared_stores += o.shared_stores;
  shared_store_bytes += o.shared_store_bytes;
  barriers += o.barriers;
  other_accesses += o.other_accesses;
  static_shared_bytes = std::max(static_shared_bytes, o.static_shared_bytes);
  return *this;
}

namespace detail {

using Range = std::pair<uintptr_t, uintptr_t>;

// Fixed arrays, no heap: the whole state is rewritten as each counted block begins, so nothing a
// kernel of an uncounted launch left in it (a pointer of a vector redirected, say) carries over.
struct BlockCounting {
  static constexpr unsigned kMaxSharedArrays = 256;  // a kernel declares a handful
  static constexpr unsigned kMaxThreads = 1024;      // a block's most (kernels.h's max_threads)
  AccessCounts counts;
  const LaunchCounter* launch = nullptr;
  Range dynamic_smem{0, 0};
  Range shared_arrays[kMaxSharedArrays];
  unsigned shared_array_count = 0;
  // Where each array's bytes (and the dynamic shared memory's) lie in the race record.
  SharedRaceRecord races;
  SharedRaceRecord::Region shared_array_region[kMaxSharedArrays];
  SharedRaceRecord::Region dynamic_region;
  // The last load and the last store the instrumentation counted, so that the watched data's
  // fault on the access itself is not counted again (note_watched_access).
  Range announced_load{0, 0};
  Range announced_store{0, 0};
  bool watched = false;
  AccessCounts unannounced;  // note_watched_access's
  // Global load bytes of each CUDA thread of the block (by its index in the block), and the one
  // running now (set_counted_thread): for AccessCounts::warp_global_load_bytes.
  uint64_t thread_load_bytes[kMaxThreads];
  unsigned threads = 0;
  unsigned thread = 0;
  Range own_memory[kMaxOwnMemoryRanges];  // begin_block_counting's, sorted
  unsigned own_memory_count = 0;
};

__thread BlockCounting* counted_block = nullptr;

namespace {

__thread bool last_valid = false;
__thread AccessCounts* last_counts = nullptr;

bool inside(const Range& r, uintptr_t a) { return a >= r.first && a < r.second; }

// The device allocations and the named variables (count_as_global_memory's), sorted, from the
// sealed tables (sealed_tables.h): ordinary memory here would be a kernel's to change.
std::vector<Range> global_ranges() {
  std::vector<Range> ranges = allocation_ranges();
  const std::vector<Range> variables = sealed_ranges(SealedTable::kGlobalVariables);
  ranges.insert(ranges.end(), variables.begin(), variables.end());
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

// count_as_constant_memory's ranges, sorted.
std::vector<Range> constant_ranges() { return sealed_ranges(SealedTable::kConstantVariables); }

// Whether `address` lies in one of `ranges` (sorted, not overlapping).
bool in_ranges(const std::vector<Range>& ranges, uintptr_t address) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uintptr_t a, const Range& r) { return a < r.first; });
  return it != ranges.begin() && address < std::prev(it)->second;
}
}  // namespace

void count_as_constant_memory(const void* begin, size_t bytes) {
  if (bytes == 0) return;
  const auto first = reinterpret_cast<uintptr_t>(begin);
  const Range range{first, first + bytes};
  sealed_append(SealedTable::kConstantVariables, &range, sizeof range);
}

bool counts_as_constant_memory(const void* address) {
  return in_ranges(constant_ranges(), reinterpret_cast<uintptr_t>(address));
}

void count_as_global_memory(const void* begin, size_t bytes) {
  if (bytes == 0) return;
  const auto first = reinterpret_cast<uintptr_t>(begin);
  const Range range{first, first + bytes};
  sealed_append(SealedTable::kGlobalVariables, &range, sizeof range);
}

LaunchCounter::LaunchCounter(const void* arguments, size_t argument_bytes, const char* kernel_name)
    : buffers_(global_ranges()),
      constants_(constant_ranges()),
      arguments_(reinterpret_cast<uintptr_t>(arguments),
                 reinterpret_cast<uintptr_t>(arguments) + argument_bytes),
      kernel_name_(kernel_name) {}

bool LaunchCounter::in_device_buffer(uintptr_t address) const {
  return in_ranges(buffers_, address);
}

bool LaunchCounter::in_constant_memory(uintptr_t address) const {
  return in_ranges(constants_, address);
}

bool LaunchCounter::in_arguments(uintptr_t address) const { return inside(arguments_, address); }

namespace {
bool overlap(uintptr_t address, uint64_t bytes, uintptr_t begin, uintptr_t end) {
  return address < end && address + bytes > begin;
}
template <class T>
bool overlaps(uintptr_t address, uint64_t bytes, const std::vector<T>& v) {
  const auto begin = reinterpret_cast<uintptr_t>(v.data());
  return overlap(address, bytes, begin, begin + v.capacity() * sizeof(T));
}
template <class T>
bool overlaps_object(uintptr_t address, uint64_t bytes, const T& object) {
  const auto begin = reinterpret_cast<uintptr_t>(&object);
  return overlap(address, bytes, begin, begin + sizeof object);
}
}  // namespace

bool LaunchCounter::overlaps_itself(uintptr_t address, uint64_t bytes) const {
  return overlaps_object(address, bytes, *this) || overlaps(address, bytes, buffers_) ||
         overlaps(address, bytes, constants_);
}

void LaunchCounter::add(const AccessCounts& block, bool watched, const AccessCounts& unannounced) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ += block;
  ++blocks_;
  if (!watched) return;
  ++watched_blocks_;
  unannounced_ += unannounced;
}

uint64_t LaunchCounter::blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_;
}

AccessCounts LaunchCounter::total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  AccessCounts total = total_;
  if (watched_blocks_ == 0) return total;
  auto scaled = [&](uint64_t v) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(v) * blocks_ / watched_blocks_);
  };
  total.global_loads += scaled(unannounced_.global_loads);
  total.global_load_bytes += scaled(unannounced_.global_load_bytes);
  total.warp_global_load_bytes += scaled(unannounced_.global_load_bytes);
  total.global_stores += scaled(unannounced_.global_stores);
  total.global_store_bytes += scaled(unannounced_.global_store_bytes);
  return total;
}

void begin_block_counting(LaunchCounter& launch, const void* dynamic_smem, size_t dynamic_bytes,
                          bool watched, unsigned threads_per_block, const Range* own_memory,
                          size_t own_memory_count) {
  static thread_local BlockCounting state;
  state.counts = AccessCounts{};
  state.launch = &launch;
  const auto begin = reinterpret_cast<uintptr_t>(dynamic_smem);
  state.dynamic_smem = {begin, begin + dynamic_bytes};
  state.shared_array_count = 0;
  state.races.begin_block();
  state.dynamic_region =
      dynamic_bytes > 0 ? state.races.add_region(dynamic_bytes, true) : SharedRaceRecord::Region{};
  state.announced_load = state.announced_store = {};
  state.watched = watched;
  state.unannounced = AccessCounts{};
  state.threads = std::min(threads_per_block, BlockCounting::kMaxThreads);
  std::fill_n(state.thread_load_bytes, state.threads, 0);
  state.thread = 0;
  state.own_memory_count =
      static_cast<unsigned>(std::min(own_memory_count, kMaxOwnMemoryRanges - 1));
  std::copy_n(own_memory, state.own_memory_count, state.own_memory);
  if (const Range record = state.races.mapping(); record.second != 0) {
    state.own_memory[state.own_memory_count++] = record;
    std::sort(state.own_memory, state.own_memory + state.own_memory_count);
  }
  counted_block = &state;
}

void end_block_counting() {
  if (counted_block == nullptr) return;
  const uint64_t* per_thread = counted_block->thread_load_bytes;
  const uint64_t threads = counted_block->threads, warps = (threads + 31) / 32;
  uint64_t busiest = 0;  // summed over the warps
  for (uint64_t first = 0; first < threads; first += 32)
    busiest += *std::max_element(per_thread + first, per_thread + std::min(first + 32, threads));
  if (warps > 0) counted_block->counts.warp_global_load_bytes += busiest * threads / warps;
  // The launch outlives its blocks; only add() needs the non-const counter.
  const_cast<LaunchCounter*>(counted_block->launch)
      ->add(counted_block->counts, counted_block->watched, counted_block->unannounced);
  SharedRaceRecord::Race race;
  if (counted_block->races.settle(race))
    report_shared_race(counted_block->launch->kernel_name(), race);
  counted_block->races.end_block();
  counted_block = nullptr;
}

void note_shared_array(const void* bytes, size_t size) {
  if (counted_block == nullptr) return;
  const auto begin = reinterpret_cast<uintptr_t>(bytes);
  BlockCounting& b = *counted_block;
  const bool room = b.shared_array_count < BlockCounting::kMaxSharedArrays;
  const SharedRaceRecord::Region region =
      room ? b.races.add_region(size, false) : SharedRaceRecord::Region{};
  // Past what a GPU's block can hold, the arrays could not be told from host memory, nor their
  // races found (r32_tile_past_the_records_256_arrays): the run ends, named.
  if (region.place == SharedRaceRecord::kNone && b.races.made())
    report_shared_record_full(b.launch->kernel_name(), b.shared_array_count, size);
  if (room) {
    b.shared_array_region[b.shared_array_count] = region;
    b.shared_arrays[b.shared_array_count++] = {begin, begin + size};
  }
  b.counts.static_shared_bytes += size;  // each array once per block (poison_shared)
}

void note_block_barrier() {
  if (counted_block == nullptr) return;
  ++counted_block->counts.barriers;
  SharedRaceRecord::Race race;
  if (counted_block->races.block_barrier(race))
    report_shared_race(counted_block->launch->kernel_name(), race);
}

void note_warp_barrier(unsigned warp) {
  SharedRaceRecord::Race race;
  if (counted_block != nullptr && counted_block->races.warp_barrier(warp, race))
    report_shared_race(counted_block->launch->kernel_name(), race);
}

namespace {
// The running CUDA thread's stack: its fiber's, within a stack's size of this frame.
bool on_own_stack(uintptr_t address) {
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const uintptr_t reach = kFiberStackBytes;
  return address + reach >= here && address <= here + reach;
}

// Whether the access reaches the emulator's own memory: the block's own_memory ranges (the
// thread-local blocks, this block's state among them, and the emulator's globals), the launch's
// counter, and the last launch's counts.
bool touches_own_memory(const BlockCounting& b, uintptr_t address, uint64_t bytes) {
  const Range* own = b.own_memory;
  const Range* end = own + b.own_memory_count;
  const Range* it =
      std::upper_bound(own, end, address, [](uintptr_t a, const Range& r) { return a < r.first; });
  if (it != own && address < std::prev(it)->second) return true;
  if (it != end && overlap(address, bytes, it->first, it->second)) return true;
  return b.launch->overlaps_itself(address, bytes) ||
         (last_counts != nullptr && overlaps_object(address, bytes, *last_counts));
}

// A counted block's kernel code touched the emulator's own memory, which no GPU kernel can reach:
// reported as "emulator_memory", as a fault is, with the access and its place (the hook's return
// address, in the kernel), then the run ends. Called directly, not through a pointer a kernel of
// an uncounted launch could have changed.
[[noreturn]] void report_own_memory_access(const BlockCounting& b, uintptr_t address,
                                           uint64_t bytes, bool store, uintptr_t pc) {
  static std::atomic<bool> reporting{false};
  if (reporting.exchange(true)) {
    for (;;) pause();
  }
  const char* access = store ? "write" : "read";
  JsonLine line("emulator_memory");
  line.str("access", access).hex("address", address).num("bytes", static_cast<long long>(bytes));
  line.str("kernel", b.launch->kernel_name()).dims("block", blockIdx).dims("thread", threadIdx);
  if (pc != 0) line.hex("pc", pc - 1);  // in the call of the hook: addr2line names its line
  char human[160];
  std::snprintf(human, sizeof human,
                "emulator_memory: a %s of the CPU backend's own memory at 0x%lx in kernel %s",
                access, static_cast<unsigned long>(address), b.launch->kernel_name());
  emit(line, human);
  _exit(kFatalExitCode);
}

// The race record's view of a shared-memory access of the running thread, in the array (or
// dynamic shared memory) at `memory`.
void record_shared_access(BlockCounting& b, const SharedRaceRecord::Region& region,
                          const Range& memory, uintptr_t address, uint64_t bytes, bool store,
                          bool atomic, uintptr_t pc) {
  SharedRaceRecord::Race race;
  if (b.races.access(address, region, address - memory.first, bytes, b.thread, store, atomic, pc,
                     race))
    report_shared_race(b.launch->kernel_name(), race);
}

}  // namespace

void report_uncounted_blocks(const LaunchCounter& launch, uint64_t launched) {
  const uint64_t counted = launch.blocks();
  JsonLine line("counting_incomplete");
  line.str("kernel", launch.kernel_name())
      .num("counted_blocks", static_cast<long long>(counted))
      .num("blocks", static_cast<long long>(launched));
  char human[200];
  std::snprintf(human, sizeof human,
                "counting_incomplete: kernel %s ran %llu of its %llu blocks uncounted",
                launch.kernel_name(), static_cast<unsigned long long>(launched - counted),
                static_cast<unsigned long long>(launched));
  emit(line, human);
  _exit(kFatalExitCode);
}

namespace {
void add_global_access(AccessCounts& c, uint64_t bytes, bool store) {
  (store ? c.global_stores : c.global_loads) += 1;
  (store ? c.global_store_bytes : c.global_load_bytes) += bytes;
}
}  // namespace

namespace {
void note_any_access(uintptr_t address, uint64_t bytes, bool store, bool atomic, uintptr_t pc) {
  BlockCounting* b = counted_block;
  if (b == nullptr) return;  // a caller that did not test it first
  AccessCounts& c = b->counts;
  (store ? b->announced_store : b->announced_load) = {address, address + bytes};
  const bool dynamic = inside(b->dynamic_smem, address);
  unsigned array = 0;
  while (!dynamic && array < b->shared_array_count && !inside(b->shared_arrays[array], address))
    ++array;
  if (dynamic || array < b->shared_array_count) {
    (store ? c.shared_stores : c.shared_loads) += 1;
    (store ? c.shared_store_bytes : c.shared_load_bytes) += bytes;
    if (dynamic)
      record_shared_access(*b, b->dynamic_region, b->dynamic_smem, address, bytes, store, atomic,
                           pc);
    else
      record_shared_access(*b, b->shared_array_region[array], b->shared_arrays[array], address,
                           bytes, store, atomic, pc);
    return;
  }
  const bool device = b->launch->in_device_buffer(address);
  // The launch's parameters and its __constant__ variables (in a writable segment, outside the
  // student's data) are the kernel's; the rest of the emulator's memory is refused.
  const bool parameter_or_constant =
      !device && (b->launch->in_arguments(address) || b->launch->in_constant_memory(address));
  if (!device && !parameter_or_constant && touches_own_memory(*b, address, bytes))
    report_own_memory_access(*b, address, bytes, store, pc);
  // Neither a device buffer, nor the kernel's own (its parameters, constants, stack): memory of the
  // host's, which no GPU kernel can read, counted as global so that operands kept there are too.
  if (device || (!parameter_or_constant && !on_own_stack(address))) {
    add_global_access(c, bytes, store);
    if (!store && b->thread < b->threads) b->thread_load_bytes[b->thread] += bytes;
  } else {
    ++c.other_accesses;
  }
}
}  // namespace

void note_access(uintptr_t address, uint64_t bytes, bool store, uintptr_t pc) {
  note_any_access(address, bytes, store, /*atomic=*/false, pc);
}

void note_atomic_access(uintptr_t address, uint64_t bytes, uintptr_t pc) {
  note_any_access(address, bytes, /*store=*/false, /*atomic=*/true, pc);
  note_any_access(address, bytes, /*store=*/true, /*atomic=*/true, pc);
}

void note_watched_access(uintptr_t address, uint64_t bytes, bool store, uintptr_t watched_begin,
                         uintptr_t watched_end) {
  BlockCounting* b = counted_block;
  if (b == nullptr) return;
  const Range& announced = store ? b->announced_store : b->announced_load;
  if (inside(announced, address) && announced.first >= watched_begin &&
      announced.second <= watched_end)
    return;  // counted by the instrumentation already
  add_global_access(b->unannounced, bytes, store);
}

void set_counted_thread(unsigned thread) {
  if (BlockCounting* b = counted_block; b != nullptr) b->thread = thread;
}

void forget_announced_accesses() {
  if (BlockCounting* b = counted_block; b != nullptr) b->announced_load = b->announced_store = {};
}

void clear_last_launch_counts(bool counting_on) {
  if (last_counts == nullptr) last_counts = new AccessCounts();  // per OS thread, kept for good
  *last_counts = AccessCounts{};
  last_valid = counting_on;
}

void set_last_launch_counts(const AccessCounts& counts) {
  clear_last_launch_counts(true);
  *last_counts = counts;
}

const AccessCounts* last_launch_access_counts() { return last_valid ? last_counts : nullptr; }

}  // namespace detail
}  // namespace emu
