// The builtins kernels call (labkit_emu/device_functions.h): barriers, warp exchanges, fences,
// each handed to the worker running the calling CUDA thread. In host code, outside a kernel,
// there is nothing to wait for, and a warp is one lane.
#include <cstdint>

#include "labkit_emu/device_functions.h"
#include "scheduler.h"

namespace emu::detail {
namespace {
// Host code's warp_exchange: a warp of one.
thread_local uint64_t host_exchange = 0;
}  // namespace

// The barrier builtins. Outside a kernel (host code) they do nothing, as there is nothing to wait
// for.
int barrier_block(const char* file, int line, BarrierOp op, int predicate) {
  Worker* w = Worker::running();
  if (w == nullptr) return predicate;
  return w->wait_block(file, line, op, predicate);
}

void barrier_warp(const char* file, int line, unsigned mask) {
  if (Worker* w = Worker::running()) w->wait_warp(file, line, mask);
}

WarpView warp_exchange(uint64_t value, unsigned mask) {
  if (Worker* w = Worker::running()) return w->exchange(value, mask);
  host_exchange = value;  // host code: a warp of one
  return WarpView{&host_exchange, 0, 1u};
}

unsigned live_lanes() {
  Worker* w = Worker::running();
  return w != nullptr ? w->live_lanes() : 1u;
}

uint64_t warp_value(int lane) {
  if (lane < 0 || lane >= 32) return 0;
  if (Worker* w = Worker::running()) return w->exchanged(lane);
  return lane == 0 ? host_exchange : 0;  // host code: a warp of one
}

void warp_exchange_done(unsigned mask) {
  // A second barrier, so that no lane overwrites its slot before every lane has read.
  if (Worker* w = Worker::running()) w->wait_warp(Worker::kShuffleWait, 0, mask);
}

void thread_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
}  // namespace emu::detail
