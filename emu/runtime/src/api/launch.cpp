// emu::detail::launch: the checks CUDA makes before a kernel runs (configuration, shared memory,
// resources) plus the emulator's own (pointer arguments that a GPU could not read), then the run,
// then the canary check of every device buffer.
#include "labkit_emu/launch.h"

#include <link.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>

#include "access_counter.h"
#include "block_pool.h"
#include "config.h"
#include "device_model.h"
#include "diagnostics.h"
#include "errors.h"
#include "kernels.h"
#include "memory.h"
#include "occupancy.h"
#include "runtime.h"
#include "scheduler.h"
#include "sealed_counts.h"
#include "watched_data.h"

namespace emu::detail {
namespace {

bool within(unsigned value, int limit) {
  return value >= 1 && value <= static_cast<unsigned>(limit);
}

cudaError_t check_configuration(const LaunchRequest& r) {
  const cudaDeviceProp& dev = device_properties();
  const uint64_t threads = uint64_t{r.block.x} * r.block.y * r.block.z;
  if (!within(r.block.x, dev.maxThreadsDim[0]) || !within(r.block.y, dev.maxThreadsDim[1]) ||
      !within(r.block.z, dev.maxThreadsDim[2]) ||
      threads > static_cast<uint64_t>(dev.maxThreadsPerBlock) ||
      !within(r.grid.x, dev.maxGridSize[0]) || !within(r.grid.y, dev.maxGridSize[1]) ||
      !within(r.grid.z, dev.maxGridSize[2])) {
    return cudaErrorInvalidConfiguration;
  }
  return cudaSuccess;
}

cudaError_t check_resources(const LaunchRequest& r, const KernelInfo& k, unsigned threads) {
  if (r.dynamic_smem > static_cast<size_t>(k.max_dynamic_smem)) return cudaErrorInvalidValue;
  if (!k.in_report) return cudaSuccess;
  // What a GPU refuses for a compiled kernel: more threads than its __launch_bounds__, or more
  // registers or shared memory than one SM has for a block.
  if (static_cast<int>(threads) > k.max_threads) return cudaErrorLaunchOutOfResources;
  if (active_blocks_per_sm(k, static_cast<int>(threads), r.dynamic_smem) == 0) {
    return cudaErrorLaunchOutOfResources;
  }
  return cudaSuccess;
}

// Globals (__device__ and __constant__ variables) live in the program's loaded segments.
bool in_loaded_image(const void* p) {
  struct Query {
    uintptr_t address;
    bool found;
  } q{reinterpret_cast<uintptr_t>(p), false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* q = static_cast<Query*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (q->address >= begin && q->address < begin + ph.p_memsz) {
            q->found = true;
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.found;
}

// A non-null pointer argument must point into device-accessible memory: a cudaMalloc'd, managed
// or pinned buffer (one past the end included), or a global.
bool device_accessible(const void* p) {
  if (p == nullptr) return true;
  if (find_allocation(p, 0)) return true;
  return in_loaded_image(p);
}

cudaError_t check_pointers(const LaunchRequest& r, const KernelInfo& k) {
  for (int i = 0; i < r.pointer_count; ++i) {
    const PointerArgument& arg = r.pointers[i];
    if (device_accessible(arg.value)) continue;
    JsonLine line("host_pointer");
    line.str("kernel", k.name.c_str())
        .num("argument", arg.index)
        .hex("address", reinterpret_cast<uintptr_t>(arg.value));
    char human[512];
    std::snprintf(human, sizeof human,
                  "host_pointer: argument %d of kernel %s (%p) is not device memory; copy the "
                  "data with cudaMalloc + cudaMemcpy and pass the device pointer",
                  arg.index, k.name.c_str(), arg.value);
    emit(line, human);
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

// The launch, and its own error (as cudaLaunchKernel returns it).
cudaError_t run_launch(const LaunchRequest& r) {
  clear_last_launch_counts(config().count_accesses);  // a launch that does not run counts nothing
  if (cudaError_t e = enter(); e != cudaSuccess) return e;  // a broken context runs nothing
  if (Worker::running() != nullptr) {
    // A launch from kernel code (dynamic parallelism) would need a second scheduler per OS thread.
    JsonLine line("unsupported");
    line.str("kernel", kernel_info(r.kernel).name.c_str())
        .str("detail", "kernels launched from kernels (dynamic parallelism) are not emulated");
    emit(line, "unsupported: a kernel launched another kernel (dynamic parallelism)");
    return record(cudaErrorNotSupported);
  }
  if (cudaError_t e = check_configuration(r); e != cudaSuccess) return record(e);
  KernelInfo& k = kernel_info(r.kernel);
  const unsigned threads = r.block.x * r.block.y * r.block.z;
  if (cudaError_t e = check_resources(r, k, threads); e != cudaSuccess) return record(e);
  if (cudaError_t e = check_pointers(r, k); e != cudaSuccess) return record(e);

  LaunchState state;
  state.request = &r;
  state.kernel_name = k.name.c_str();
  state.threads_per_block = threads;
  state.order = config().order;
  state.seed = config().seed;
  std::optional<LaunchCounter> counter;
  std::optional<WatchedLaunch> watched;
  const uint64_t blocks = uint64_t{r.grid.x} * r.grid.y * r.grid.z;
  if (config().count_accesses) {
    state.counter = &counter.emplace(r.closure, r.closure_bytes, state.kernel_name);
    state.one_os_thread = data_is_watched();
    watched.emplace(blocks);
  }
  run_blocks(state, blocks);
  watched.reset();
  if (counter) {
    // Every block a launch runs is counted; fewer means kernel code changed what tells the
    // scheduler so (a launch that failed ran fewer, and its counts do not matter).
    if (!state.failed.load() && counter->blocks() != blocks)
      report_uncounted_blocks(*counter, blocks);
    const AccessCounts total = counter->total();
    set_last_launch_counts(total);
    seal_launch_counts(total);
  }

  check_canaries();
  if (!state.failed.load()) return cudaSuccess;
  make_sticky(cudaErrorLaunchFailure);
  return cudaErrorLaunchFailure;
}

// What the latest launch ended with: not an error of the last-error state, which an earlier
// call's error may hold, and which a successful launch leaves as it was.
std::atomic<int> latest_launch_status{cudaSuccess};
}  // namespace

void launch(const LaunchRequest& r) { latest_launch_status.store(run_launch(r)); }

cudaError_t last_launch_status() { return static_cast<cudaError_t>(latest_launch_status.load()); }
}  // namespace emu::detail
