#include "scheduler.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>

#include "diagnostics.h"
#include "faults.h"
#include "guards.h"
#include "own_memory.h"
#include "watched_data.h"

__thread unsigned char __emu_kernel_running = 0;

namespace emu::detail {

__thread uint64_t block_generation = 0;
__thread unsigned char* dynamic_smem_base = nullptr;

namespace {
// The worker running a block on this OS thread (null outside kernels): the barrier builtins and
// the fault handler find the running CUDA thread through it.
__thread Worker* running_worker = nullptr;

// Large enough for every modelled device's opt-in limit (227 KiB on H100).
constexpr size_t kDynamicSmemRegion = 256 * 1024;

uint3 unflatten(uint64_t linear, dim3 extent) {
  return uint3{static_cast<unsigned>(linear % extent.x),
               static_cast<unsigned>(linear / extent.x % extent.y),
               static_cast<unsigned>(linear / (uint64_t{extent.x} * extent.y))};
}

// SplitMix64: a small, well-mixed generator, so that a (seed, block, phase) triple always gives
// the same permutation whichever OS thread runs the block.
uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string thread_ranges(const std::vector<unsigned>& threads) {
  constexpr int kMaxRanges = 8;
  std::string out = threads.size() == 1 ? "thread " : "threads ";
  int ranges = 0;
  for (size_t i = 0; i < threads.size();) {
    size_t j = i;
    while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1) ++j;
    if (ranges == kMaxRanges) {
      out += ", ...";
      break;
    }
    if (ranges++ > 0) out += ", ";
    out += std::to_string(threads[i]);
    if (j > i) out += "-" + std::to_string(threads[j]);
    i = j + 1;
  }
  return out;
}

bool same_place(const char* file_a, int line_a, const char* file_b, int line_b) {
  return line_a == line_b && (file_a == file_b || std::strcmp(file_a, file_b) == 0);
}
}  // namespace

Worker::Worker() : fibers_(kFiberStackBytes) {
  ensure_alternate_signal_stack();
  if (races_.active()) fibers_.keep_frames_at_top();
}

Worker::~Worker() {
  if (smem_region_end_ != nullptr) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    munmap(smem_region_end_ - kDynamicSmemRegion, kDynamicSmemRegion + page);
  }
}

Worker& Worker::local() {
  // Never destroyed: exit() may be called from kernel code, on one of this worker's fiber stacks.
  static thread_local Worker* worker = new Worker();
  return *worker;
}

Worker* Worker::running() { return running_worker; }

size_t Worker::dynamic_smem_bytes() const { return smem_bytes_; }

void Worker::prepare_dynamic_smem(size_t bytes) {
  if (smem_region_end_ == nullptr) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* map = mmap(nullptr, kDynamicSmemRegion + page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) std::abort();
    smem_region_end_ = static_cast<unsigned char*>(map) + kDynamicSmemRegion;
    mprotect(smem_region_end_, page, PROT_NONE);
    const auto guard = reinterpret_cast<uintptr_t>(smem_region_end_);
    register_guard(guard, guard + page, GuardKind::dynamic_shared);
  }
  // The launch's bytes end at the guard page (rounded to 16 for alignment), so reading past them
  // faults like a cudaMalloc buffer does.
  smem_bytes_ = bytes;
  dynamic_smem_base = smem_region_end_ - (bytes + 15) / 16 * 16;
  std::memset(dynamic_smem_base, 0xFF, bytes);
}

void Worker::make_order(std::vector<unsigned>& threads, unsigned phase) {
  // `threads` arrives in ascending order.
  switch (launch_->order) {
    case Order::forward:
      break;
    case Order::reverse:
      std::reverse(threads.begin(), threads.end());
      break;
    case Order::random: {
      uint64_t state = launch_->seed;
      state = splitmix(state) ^ block_linear_;
      state = splitmix(state) ^ phase;
      for (size_t i = threads.size(); i > 1; --i) {
        std::swap(threads[i - 1], threads[splitmix(state) % i]);
      }
      break;
    }
  }
}

void Worker::prepare_threads(const LaunchState& launch) {
  const dim3 block = launch.request->block;
  const unsigned n = launch.threads_per_block;
  if (block.x != indices_dim_.x || block.y != indices_dim_.y || block.z != indices_dim_.z) {
    indices_.resize(n);
    for (unsigned t = 0; t < n; ++t) indices_[t] = unflatten(t, block);
    indices_dim_ = block;
    slots_.resize(n);
    states_.resize(n);
    exchange_.resize(n);
    queue_fixed_ = false;
  }
  std::fill(states_.begin(), states_.end(), State::unstarted);
  warp_released_.assign((n + 31) / 32, 0);
  // Forward and reverse orders are the same for every block of a shape; a random one is drawn
  // per block (and phase).
  if (launch.order == Order::random || !queue_fixed_ || launch.order != queue_order_) {
    queue_.resize(n);
    std::iota(queue_.begin(), queue_.end(), 0u);
    make_order(queue_, 0);
    queue_fixed_ = launch.order != Order::random;
    queue_order_ = launch.order;
  }
  queue_next_ = 0;
  released_.clear();
  released_next_ = 0;
  waiting_ = 0;
}

void Worker::run_block(LaunchState& launch, uint64_t block_linear) {
  const LaunchRequest& request = *launch.request;
  launch_ = &launch;
  block_linear_ = block_linear;
  running_worker = this;
  __emu_kernel_running = 1;
  blockDim = request.block;
  gridDim = request.grid;
  blockIdx = unflatten(block_linear, request.grid);
  ++block_generation;
  prepare_dynamic_smem(request.dynamic_smem);
  // A sample of the blocks runs with the student's data watched (watched_data.h).
  const bool watched = launch.counter != nullptr && watch_block(block_linear);
  if (launch.counter != nullptr) {
    std::pair<uintptr_t, uintptr_t> own[kMaxOwnMemoryRanges];
    size_t own_count = own_memory_now(own, kMaxOwnMemoryRanges - 2);
    // The launch's state and this worker, which say whether the next block is counted (a kernel
    // that cleared the launch's counter pointer ran every later block uncounted:
    // r3_counted_block_switches_off_later_blocks).
    const auto state = reinterpret_cast<uintptr_t>(&launch);
    const auto self = reinterpret_cast<uintptr_t>(this);
    own[own_count++] = {state, state + sizeof launch};
    own[own_count++] = {self, self + sizeof *this};
    std::sort(own, own + own_count);
    begin_block_counting(*launch.counter, dynamic_smem_base, request.dynamic_smem, watched,
                         launch.threads_per_block, own, own_count);
  }

  prepare_threads(launch);
  races_.begin_block(launch.threads_per_block, blockIdx, blockDim);
  run_phase();  // phase 0: every thread starts and runs to its first barrier (or to the end)

  // A block in which no thread waits is over: its threads have all returned.
  for (unsigned phase = 1; waiting_ > 0 && !launch.failed.load(std::memory_order_relaxed) &&
                           resolve_barriers();
       ++phase) {
    make_order(released_, phase);
    released_next_ = 0;
    run_phase();
  }
  races_.end_block();
  end_block_counting();
  if (watched) unwatch_block();
  reset_fibers();
  __emu_kernel_running = 0;
  running_worker = nullptr;
  launch_ = nullptr;
}

Fiber* Worker::next_fiber() {
  if (queue_next_ < queue_.size()) {
    // Threads not started yet: a fresh runner takes them over.
    active_runner_ = fibers_.acquire(&Worker::runner_entry);
    return active_runner_;
  }
  if (released_next_ < released_.size()) {
    const unsigned t = released_[released_next_++];
    --waiting_;
    enter_thread(t);
    return slots_[t].fiber;
  }
  return nullptr;  // the phase is over
}

void Worker::run_phase() {
  Fiber* first = next_fiber();
  if (first == nullptr) return;
  leaving_ = nullptr;
  arrive(ctx::jump_fcontext(first->context, this));
}

void Worker::switch_away(Fiber* me) {
  Fiber* next = next_fiber();
  leaving_ = me;
  arrive(ctx::jump_fcontext(next != nullptr ? next->context : scheduler_, this));
}

void Worker::arrive(ctx::transfer_t back) {
  // `back.fctx` is where the fiber (or scheduler) we just left will resume.
  forget_announced_accesses();
  if (leaving_ == nullptr) {
    scheduler_ = back.fctx;
  } else if (leaving_ == finished_) {
    // Retired only now that nothing runs on its stack any more.
    retire_fiber(finished_);
    finished_ = nullptr;
  } else {
    leaving_->context = back.fctx;
  }
}

void Worker::runner_entry(ctx::transfer_t from) {
  auto* w = static_cast<Worker*>(from.data);
  w->arrive(from);
  Fiber* const me = w->active_runner_;
  const LaunchRequest& request = *w->launch_->request;
  // Runs queued threads one after the other until one of them stops at a barrier: that thread
  // keeps this fiber (wait_block hands the queue to a new runner), and when it finishes later the
  // loop ends here.
  if (!w->races_.active()) {
    // The common case, kept short: most threads of most kernels pass through here.
    while (w->active_runner_ == me && w->queue_next_ < w->queue_.size()) {
      const unsigned t = w->queue_[w->queue_next_++];
      w->enter_thread(t);
      w->slots_[t].fiber = me;
      // In every block, sampled or not: a kernel must not tell a counted block by its stack.
      clear_stack_below_caller(*me);
      request.run_thread(request.closure);
      w->states_[t] = State::done;
    }
  } else if (w->queue_next_ < w->queue_.size()) {
    // Under ThreadSanitizer one CUDA thread per stack (see retire_fiber).
    const unsigned t = w->queue_[w->queue_next_++];
    w->enter_thread(t);
    w->slots_[t].fiber = me;
    // ThreadSanitizer sees the CUDA thread only while it runs kernel code; the scheduler's own
    // bookkeeping (allocating fibers, switching) stays on the scheduler's identity.
    w->races_.enter_thread(t);
    w->races_.thread_started();
    // Its own stack within the block, but one a thread of an earlier block may have used.
    clear_stack_below_caller(*me);
    request.run_thread(request.closure);
    w->races_.thread_finished();
    w->races_.enter_scheduler();
    w->states_[t] = State::done;
  }
  if (w->active_runner_ == me) w->active_runner_ = nullptr;
  w->finished_ = me;
  w->switch_away(me);
  __builtin_unreachable();  // a finished fiber is never resumed
}

void Worker::enter_thread(unsigned t) {
  forget_announced_accesses();  // what the last thread on this fiber announced is not this one's
  set_counted_thread(t);
  current_ = t;
  states_[t] = State::running;
  threadIdx = indices_[t];
}

void Worker::suspend_current() {
  Fiber* me = slots_[current_].fiber;
  if (active_runner_ == me) active_runner_ = nullptr;  // the thread keeps its runner
  switch_away(me);
}

int Worker::wait_block(const char* file, int line, BarrierOp op, int predicate) {
  Slot& s = slots_[current_];
  states_[current_] = State::waiting;
  ++waiting_;
  s.at_warp_barrier = false;
  s.op = op;
  s.predicate = predicate;
  s.file = file;
  s.line = line;
  const uint64_t ticket = races_.arrive_block_barrier();
  races_.enter_scheduler();
  suspend_current();
  races_.enter_thread(current_);
  races_.depart_block_barrier(ticket);
  switch (op) {
    case BarrierOp::count:
      return barrier_count_;
    case BarrierOp::all:
      return barrier_count_ == barrier_live_ ? 1 : 0;
    case BarrierOp::any:
      return barrier_count_ > 0 ? 1 : 0;
    case BarrierOp::plain:
      break;
  }
  return 0;
}

void Worker::wait_warp(const char* file, int line, uint32_t mask) {
  Slot& s = slots_[current_];
  states_[current_] = State::waiting;
  ++waiting_;
  s.at_warp_barrier = true;
  s.warp_mask = mask;
  s.file = file;
  s.line = line;
  const unsigned warp = current_ / 32;
  const uint64_t ticket = races_.arrive_warp_barrier(warp);
  races_.enter_scheduler();
  suspend_current();
  races_.enter_thread(current_);
  races_.depart_warp_barrier(warp, ticket);
}

uint64_t Worker::exchanged(int lane) const {
  const std::size_t slot = current_ / 32 * 32 + static_cast<std::size_t>(lane);
  return slot < exchange_.size() ? exchange_[slot] : 0;
}

WarpView Worker::exchange(uint64_t value, uint32_t mask) {
  const unsigned t = current_;
  exchange_[t] = value;
  wait_warp(kShuffleWait, 0, mask);
  const unsigned warp = t / 32;
  return WarpView{exchange_.data() + warp * 32, t % 32, warp_released_[warp]};
}

unsigned Worker::live_lanes() const {
  const unsigned w0 = current_ / 32 * 32;
  const unsigned end = std::min<unsigned>(static_cast<unsigned>(states_.size()), w0 + 32);
  unsigned lanes = 0;
  for (unsigned t = w0; t < end; ++t) {
    if (states_[t] != State::done) lanes |= 1u << (t - w0);
  }
  return lanes;
}

bool Worker::resolve_barriers() {
  released_.clear();
  const unsigned n = static_cast<unsigned>(states_.size());
  bool any_live = false;
  // Warp barriers go on first: a lane waiting at one goes on once every live lane its mask names
  // waits at one with the same mask, as bar.warp.sync requires (half a warp may sync beside the
  // other half waiting at __syncthreads; a lane at __syncwarp(m) holds a full __syncwarp() back).
  for (unsigned w0 = 0; w0 < n; w0 += 32) {
    const unsigned end = std::min(n, w0 + 32);
    uint32_t live = 0, at_warp = 0;
    for (unsigned t = w0; t < end; ++t) {
      if (states_[t] == State::done) continue;
      any_live = true;
      live |= 1u << (t - w0);
      if (states_[t] == State::waiting && slots_[t].at_warp_barrier) at_warp |= 1u << (t - w0);
    }
    uint32_t lanes = 0;
    for (unsigned t = w0; t < end; ++t) {
      if ((at_warp >> (t - w0) & 1u) == 0) continue;
      const uint32_t named = slots_[t].warp_mask & live;
      bool ready = (named & ~at_warp) == 0;
      for (unsigned u = w0; ready && u < end; ++u)
        ready = (named >> (u - w0) & 1u) == 0 || slots_[u].warp_mask == slots_[t].warp_mask;
      if (ready) lanes |= 1u << (t - w0);
    }
    if (lanes == 0) continue;
    bool syncwarp = false;  // a __syncwarp, which orders memory; a shuffle does not
    for (unsigned t = w0; t < end; ++t) {
      if ((lanes >> (t - w0) & 1u) == 0) continue;
      released_.push_back(t);
      syncwarp = syncwarp || slots_[t].file != kShuffleWait;
    }
    warp_released_[w0 / 32] = lanes;
    races_.warp_barrier_released(w0 / 32);
    if (syncwarp) note_warp_barrier(w0 / 32);
  }
  if (!any_live) return false;
  if (!released_.empty()) return true;

  // __syncthreads: every thread of the block, none returned, all at the same line.
  int count = 0;
  for (unsigned t = 0; t < n; ++t) {
    const Slot& s = slots_[t];
    if (states_[t] != State::waiting || s.at_warp_barrier ||
        !same_place(s.file, s.line, slots_[0].file, slots_[0].line)) {
      report_divergence();
      launch_->failed.store(true);
      return false;
    }
    count += s.predicate;
  }
  barrier_count_ = count;
  barrier_live_ = static_cast<int>(n);
  races_.block_barrier_released();
  note_block_barrier();
  released_.resize(n);
  std::iota(released_.begin(), released_.end(), 0u);
  return true;
}

void Worker::report_divergence() {
  struct Group {
    std::string what;
    std::vector<unsigned> threads;
  };
  std::vector<Group> groups;
  std::vector<std::string> lines;
  for (unsigned t = 0; t < slots_.size(); ++t) {
    const Slot& s = slots_[t];
    std::string what = "have returned";
    if (states_[t] == State::waiting) {
      std::string place = std::string(s.file) + ":" + std::to_string(s.line);
      what = std::string(s.at_warp_barrier ? "wait at __syncwarp at " : "wait at the barrier at ") +
             place;
      if (std::find(lines.begin(), lines.end(), place) == lines.end()) lines.push_back(place);
    }
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.what == what; });
    if (g == groups.end()) {
      groups.push_back(Group{what, {}});
      g = groups.end() - 1;
    }
    g->threads.push_back(t);
  }
  std::string detail;
  for (const Group& g : groups) {
    if (!detail.empty()) detail += " while ";
    detail += thread_ranges(g.threads) + " " + g.what;
  }
  std::vector<const char*> line_ptrs;
  for (const std::string& l : lines) line_ptrs.push_back(l.c_str());

  JsonLine json("divergent_barrier");
  json.str("kernel", launch_->kernel_name).dims("block", blockIdx).str("detail", detail.c_str());
  json.strs("lines", line_ptrs.data(), static_cast<int>(line_ptrs.size()));
  const std::string human = std::string("divergent barrier in ") + launch_->kernel_name +
                            ", block (" + std::to_string(blockIdx.x) + "," +
                            std::to_string(blockIdx.y) + "," + std::to_string(blockIdx.z) +
                            "): " + detail;
  emit(json, human.c_str());
}

void Worker::retire_fiber(Fiber* fiber) {
  if (races_.active()) {
    retired_.push_back(fiber);
  } else {
    fibers_.release(fiber);
  }
}

void Worker::reset_fibers() {
  // Threads abandoned at a divergent barrier still hold fibers; their stacks are simply reused.
  // (A slot's fiber is always set before it is read: nothing else to clear.)
  for (unsigned t = 0; waiting_ > 0 && t < slots_.size(); ++t) {
    Slot& s = slots_[t];
    if (states_[t] != State::waiting) continue;
    races_.abandon_thread(t);
    if (s.fiber != nullptr) fibers_.release(s.fiber);
    s.fiber = nullptr;
  }
  for (Fiber* f : retired_) fibers_.release(f);
  retired_.clear();
  active_runner_ = nullptr;
}

}  // namespace emu::detail
