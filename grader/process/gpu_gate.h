// Batch grading runs many submissions at once on the machine's GPUs. Correctness runs may share a
// GPU; a timed run must not: another process's kernels would slow it down and the score would
// depend on who else was being graded. GpuGateRunner takes a shared or exclusive hold on one GPU
// (GpuGate) per command, as the command's `gpu` field asks, around any other runner, and points
// the command at that GPU (CUDA_VISIBLE_DEVICES), so each GPU runs at most one timed run at a time
// and several GPUs time several submissions side by side. A submission's speed is judged against
// references timed in the same run, so which GPU it lands on does not change its score.
//
// Timed runs go first: once one is waiting for a GPU, no new shared run starts anywhere, and the
// GPU it has claimed takes no new shared runs while the ones already there finish
// (std::shared_mutex makes no such promise, and with sixteen jobs correctness runs would keep a
// timed run waiting for minutes). But the drain is patient only for so long: a shared run that
// takes long (a sanitizer's run of a racy kernel, 20 s; a hang, its whole time limit) would keep
// the GPU idle and every job waiting. After `drain_patience` the timed run gives its claim back,
// lets shared runs go on beside the slow ones, and claims again once the runs that held up its
// drain have ended (lab 03's bad class on an H100: seven such drains idled 140 s of 280).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "process.h"

namespace labkit {

// Which GPU each command gets, shared by every submission of a batch.
class GpuGate {
 public:
  // `gpus`: what CUDA_VISIBLE_DEVICES should say for each GPU (VisibleGpus()); empty: one GPU,
  // left as the environment chooses.
  explicit GpuGate(std::vector<std::string> gpus = {},
                   std::chrono::milliseconds drain_patience = std::chrono::seconds(3));

  // A turn at one GPU: which, and (a shared run) its place in the order runs started.
  struct Hold {
    std::size_t gpu = 0;
    uint64_t ticket = 0;
  };
  // Waits for a GPU to use as asked; Leave(hold, ...) gives it back.
  Hold Enter(bool exclusive);
  // The GPU a program that takes turns (GpuUse::kTurns) is placed on, without a turn: the least
  // busy one not claimed by a timed run, else the least busy.
  std::size_t Place();
  // Waits for a turn at `gpu` as asked; Leave(hold, ...) gives it back.
  Hold EnterOn(std::size_t gpu, bool exclusive);
  void Leave(const Hold& hold, bool exclusive);
  // The CUDA_VISIBLE_DEVICES value for a GPU, or "" when the environment chooses.
  std::string VisibleDevices(std::size_t gpu) const;

 private:
  struct Gpu {
    std::set<uint64_t> shared;  // the tickets of the shared runs on it now
    bool claimed = false;       // by a timed run, running or waiting for the shared ones to finish
  };
  // The GPU with the fewest shared runs, with `only_unclaimed` among those no timed run has
  // claimed; gpus_.size() when there is none.
  std::size_t LeastBusy(bool only_unclaimed) const;
  // Enter and EnterOn: `choose` (called with the lock held) names the GPU to use now, or
  // gpus_.size() while none will do.
  template <class Choose>
  Hold EnterWhere(bool exclusive, Choose choose);
  // A timed run's claim of `gpu`, held once its shared runs have ended (see above).
  void ClaimDrained(std::unique_lock<std::mutex>& lock, std::size_t gpu);

  const std::vector<std::string> visible_;
  const std::chrono::milliseconds drain_patience_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Gpu> gpus_;
  int timed_waiting_for_a_gpu_ = 0;
  uint64_t next_ticket_ = 0;
};

// Runs each command that uses the GPU while holding one through `gate`, pointed at that GPU. It
// must sit outside the sandbox (SandboxedProcessRunner), which builds the command's environment.
// A command that takes turns (GpuUse::kTurns) holds nothing for its own sake: it is placed on a
// GPU and given the socket it asks for its turns through (gpu_turn_server.h).
class GpuGateRunner : public ProcessRunner {
 public:
  GpuGateRunner(GpuGate& gate, ProcessRunner& inner) : gate_(gate), inner_(inner) {}
  ProcessResult Run(const Command& command) override;

 private:
  ProcessResult RunTakingTurns(const Command& command);
  // `command` pointed at `gpu` (CUDA_VISIBLE_DEVICES), where the gate names GPUs.
  Command PlacedOn(const Command& command, std::size_t gpu) const;

  GpuGate& gate_;
  ProcessRunner& inner_;
};

}  // namespace labkit
