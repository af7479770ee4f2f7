// Batch grading runs many submissions at once on the machine's GPUs. Correctness runs may share a
// GPU; a timed run must not: another process's kernels would slow it down and the score would
// depend on who else was being graded. GpuGateRunner takes a shared or exclusive hold on one GPU
// (GpuGate) per command, as the command's `gpu` field asks, around any other runner, and points
// the command at that GPU (CUDA_VISIBLE_DEVICES), so each GPU runs at most one timed run at a time
// and several GPUs time several submissions side by side. A submission's speed is judged against
// references timed in the same run, so which GPU it lands on does not change its score.
//
// Timed runs go first, in windows: once a window opens, no new shared run starts anywhere, the GPU
// a timed run has claimed takes no new shared runs while the ones already there finish, and every
// timed run waiting then, or arriving while it is open, runs before shared runs resume
// (std::shared_mutex makes no such promise, and with sixteen jobs correctness runs would keep a
// timed run waiting for minutes). The GPU stands partly idle while it drains, which cost most of a
// class's time when each timed run drained it alone (bench/results, 2026-11-26). So a timed run
// that arrives while others share the GPU waits, with shared runs going on, until a group of timed
// runs waits (a quarter of the jobs still grading) or it has waited kLongestTimingWait; one drain
// then serves the group. Where nothing shares the GPU (a single `check`), it goes at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "process.h"

namespace labkit {

// Which GPU each command gets, shared by every submission of a batch.
// How long a timed run waits for others to share a window with, at most: a few shared runs' time
// under load, so that a drain is shared without a job standing idle for long.
inline constexpr std::chrono::milliseconds kLongestTimingWait{8000};

class GpuGate {
 public:
  // `gpus`: what CUDA_VISIBLE_DEVICES should say for each GPU (VisibleGpus()); empty: one GPU,
  // left as the environment chooses. `jobs`: how many jobs of a batch use the gate (1: timed runs
  // never wait for a group).
  explicit GpuGate(std::vector<std::string> gpus = {}, int jobs = 1,
                   std::chrono::milliseconds longest_wait = kLongestTimingWait);

  // Waits for a GPU to use as asked and returns its index; Leave(index, ...) gives it back.
  std::size_t Enter(bool exclusive);
  void Leave(std::size_t gpu, bool exclusive);
  // A job of the batch has no more submissions: groups shrink with the jobs left, so that the
  // last few do not wait for timed runs that will not come.
  void JobFinished();
  // The CUDA_VISIBLE_DEVICES value for a GPU, or "" when the environment chooses.
  std::string VisibleDevices(std::size_t gpu) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Gpu {
    int shared = 0;        // shared runs on it now
    bool claimed = false;  // by a timed run, running or waiting for the shared ones to finish
  };
  // The unclaimed GPU with the fewest shared runs; gpus_.size() when all are claimed.
  std::size_t LeastBusyUnclaimed() const;
  // Whether a timed run that arrived at `arrived` may open a window now.
  bool WindowMayOpen(Clock::time_point arrived) const;

  const std::vector<std::string> visible_;
  const std::chrono::milliseconds longest_wait_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Gpu> gpus_;
  int jobs_left_;
  int timed_waiting_ = 0;  // timed runs that have not claimed a GPU yet
  int shared_running_ = 0;
  bool window_open_ = false;
};

// Runs each command that uses the GPU while holding one through `gate`, pointed at that GPU. It
// must sit outside the sandbox (SandboxedProcessRunner), which builds the command's environment.
class GpuGateRunner : public ProcessRunner {
 public:
  GpuGateRunner(GpuGate& gate, ProcessRunner& inner) : gate_(gate), inner_(inner) {}
  ProcessResult Run(const Command& command) override;

 private:
  GpuGate& gate_;
  ProcessRunner& inner_;
};

}  // namespace labkit
