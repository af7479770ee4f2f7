// Runs the blocks of a launch. Each CUDA thread is a fiber; a block's fibers stay on one OS thread
// and run one at a time, in the order LABKIT_EMU_ORDER asks for, from one barrier to the next
// (a "phase"). After each phase the waiting threads are checked: all at the same __syncthreads,
// or whole warps at __syncwarp, are released; anything else is a divergent barrier, reported and
// ending the launch with a sticky cudaErrorLaunchFailure instead of hanging.
//
// Fast path: threads start on a "runner" fiber that calls the kernel for one thread after the
// other. Only a thread that reaches a barrier keeps the runner as its own fiber (a new runner
// takes over the rest), so a barrier-free kernel costs one fiber per block, not one per thread.
// A thread that returns without waiting costs its kernel call, two stores and the clearing of
// the stack it starts on (fiber.h; only the part ever opened, usually about 2 KiB): its index comes
// from a table made once per block shape, and a block in which no thread waited ends without
// looking at its threads again. A grid sized far beyond the matrix, whose extra blocks all
// return at once, then costs next to nothing for those blocks (issue 13: one such kernel took
// 211 s to grade, when a block cost a division per thread and several passes over its threads).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "access_counter.h"
#include "config.h"
#include "fiber.h"
#include "labkit_emu/device_functions.h"
#include "labkit_emu/launch.h"
#include "race_annotations.h"

// Non-zero while this OS thread runs a block of a kernel. The stubs labgrade puts between a
// student's object and the library functions host code may call read it (its own assembly, by
// name, hence C linkage): in kernel code, such a call ends the run (faults.h,
// __emu_host_call_in_kernel; grader/build/device_call_guard.h).
extern "C" __thread unsigned char __emu_kernel_running;

namespace emu::detail {

struct LaunchState {
  const LaunchRequest* request = nullptr;
  const char* kernel_name = "";
  unsigned threads_per_block = 0;
  Order order = Order::forward;
  uint64_t seed = 0;
  std::atomic<bool> failed{false};  // a block found a divergent barrier: stop the others
  LaunchCounter* counter = nullptr;  // with LABKIT_EMU_COUNT_ACCESSES: where blocks add their counts
  // A counted launch that watches the student's data (watched_data.h): while a fault's step has a
  // page open, no other OS thread may run the kernel.
  bool one_os_thread = false;
};

class Worker {
 public:
  Worker();
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The calling OS thread's worker.
  static Worker& local();
  // The worker running a block on this OS thread, or null outside kernels.
  static Worker* running();

  void run_block(LaunchState& launch, uint64_t block_linear);

  // Called from kernel code through the barrier builtins.
  int wait_block(const char* file, int line, BarrierOp op, int predicate);
  // A shuffle's or vote's wait passes kShuffleWait as its file: it orders no memory
  // (shared_races.h).
  static constexpr const char* kShuffleWait = "a warp shuffle";
  // Waits until every live lane of the warp that `mask` names waits at a warp barrier.
  void wait_warp(const char* file, int line, uint32_t mask);
  // Warp shuffles: publish this thread's value and wait for the warp.
  WarpView exchange(uint64_t value, uint32_t mask);
  // Lane `lane` (0 to 31) of the running thread's warp: its value in the warp's last exchange.
  uint64_t exchanged(int lane) const;
  unsigned live_lanes() const;

  // For the fault handler.
  const LaunchState* launch() const { return launch_; }
  size_t dynamic_smem_bytes() const;
  const unsigned char* dynamic_smem_end() const { return smem_region_end_; }

 private:
  enum class State : uint8_t { unstarted, running, waiting, done };
  // What a thread left at a barrier: written when it stops there, read only while it waits.
  struct Slot {
    bool at_warp_barrier;
    uint32_t warp_mask;  // the lanes a warp barrier waits for
    BarrierOp op;
    int predicate;
    const char* file;
    int line;
    Fiber* fiber;
  };

  static void runner_entry(ctx::transfer_t from);
  void prepare_dynamic_smem(size_t bytes);
  // Per block: the thread indices for the block's shape and the phase-0 run order, each made
  // again only when what it depends on changed (the shape; the block, for a random order).
  void prepare_threads(const LaunchState& launch);
  void make_order(std::vector<unsigned>& threads, unsigned phase);
  void enter_thread(unsigned thread);
  // Runs one phase: from here, control passes from fiber to fiber (each stopping thread switches
  // straight to the next, half the switches of going through this loop) and comes back when the
  // phase has no thread left to run.
  void run_phase();
  // The fiber to run next in this phase (entering its thread), or null at the end of the phase.
  Fiber* next_fiber();
  // Leaves fiber `me` (stopped at a barrier, or finished) for the next one or the scheduler.
  void switch_away(Fiber* me);
  // Bookkeeping on arrival in a fiber or the scheduler: remember where the one left resumes.
  void arrive(ctx::transfer_t back);
  void suspend_current();
  // Releases the threads that may go on into released_; false when the block is over (finished
  // or divergent).
  bool resolve_barriers();
  void report_divergence();
  void reset_fibers();
  // A fiber no thread will run on again: back to the pool, or, under ThreadSanitizer, kept until
  // the block ends, so that no two CUDA threads of a block ever share a stack (TSan would take
  // the second one's locals for a race with the first's).
  void retire_fiber(Fiber* fiber);

  FiberPool fibers_;
  RaceAnnotations races_;
  std::vector<Fiber*> retired_;  // under ThreadSanitizer: this block's finished fibers
  LaunchState* launch_ = nullptr;
  uint64_t block_linear_ = 0;
  std::vector<Slot> slots_;
  std::vector<State> states_;  // per thread
  std::vector<uint3> indices_;  // per thread: its threadIdx, for the block shape `indices_dim_`
  dim3 indices_dim_{0, 0, 0};
  unsigned waiting_ = 0;  // threads now stopped at a barrier
  std::vector<unsigned> queue_;  // phase 0: the threads not started yet, in run order
  bool queue_fixed_ = false;     // queue_ holds a forward or reverse order for this block shape
  Order queue_order_ = Order::forward;
  size_t queue_next_ = 0;
  std::vector<unsigned> released_;  // later phases: the threads released, in run order
  size_t released_next_ = 0;
  Fiber* active_runner_ = nullptr;  // the runner taking queued threads, if any
  Fiber* leaving_ = nullptr;        // the fiber being left by the current switch (null: scheduler)
  Fiber* finished_ = nullptr;       // a fiber that ran out of threads, released on arrival
  unsigned current_ = 0;
  ctx::fcontext_t scheduler_ = nullptr;
  std::vector<uint64_t> exchange_;       // one value per thread, for the warp shuffles
  std::vector<uint32_t> warp_released_;  // per warp: the lanes released by its last __syncwarp
  int barrier_count_ = 0;  // the __syncthreads_count/and/or result of the last release
  int barrier_live_ = 0;
  // Dynamic shared memory: a region that ends at a guard page; a launch uses its top bytes.
  unsigned char* smem_region_end_ = nullptr;
  size_t smem_bytes_ = 0;
};

}  // namespace emu::detail
