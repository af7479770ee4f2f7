// Batch grading runs many submissions at once on one GPU. Correctness runs may share it; a timed
// run must not: another process's kernels would slow it down and the score would depend on who
// else was being graded. GpuGateRunner takes a shared or exclusive hold per command, as the
// command's `gpu` field asks, around any other runner.
//
// Timed runs go first: once one is waiting, no new shared run starts (std::shared_mutex makes no
// such promise, and with sixteen jobs correctness runs would keep a timed run waiting for minutes).
#pragma once

#include <condition_variable>
#include <mutex>

#include "process.h"

namespace labkit {

class GpuGateRunner : public ProcessRunner {
 public:
  explicit GpuGateRunner(ProcessRunner& inner) : inner_(inner) {}

  ProcessResult Run(const Command& command) override {
    if (command.gpu == GpuUse::kNone) return inner_.Run(command);
    const bool exclusive = command.gpu == GpuUse::kExclusive;
    Enter(exclusive);
    ProcessResult result = inner_.Run(command);
    Leave(exclusive);
    return result;
  }

 private:
  void Enter(bool exclusive) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (exclusive) {
      ++writers_waiting_;
      changed_.wait(lock, [&] { return !writer_active_ && readers_ == 0; });
      --writers_waiting_;
      writer_active_ = true;
    } else {
      changed_.wait(lock, [&] { return !writer_active_ && writers_waiting_ == 0; });
      ++readers_;
    }
  }
  void Leave(bool exclusive) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (exclusive)
        writer_active_ = false;
      else
        --readers_;
    }
    changed_.notify_all();
  }

  ProcessRunner& inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int readers_ = 0;
  int writers_waiting_ = 0;
  bool writer_active_ = false;
};

}  // namespace labkit
