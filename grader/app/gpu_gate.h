// Batch grading runs many submissions at once on one GPU. Correctness runs may share it; a timed
// run must not: another process's kernels would slow it down and the score would depend on who
// else was being graded. GpuGateRunner takes a shared or exclusive lock per command, as the
// command's `gpu` field asks, around any other runner.
#pragma once

#include <shared_mutex>

#include "process.h"

namespace labkit {

class GpuGateRunner : public ProcessRunner {
 public:
  explicit GpuGateRunner(ProcessRunner& inner) : inner_(inner) {}
  ProcessResult Run(const Command& command) override {
    if (command.gpu == GpuUse::kExclusive) {
      std::unique_lock<std::shared_mutex> lock(gpu_);
      return inner_.Run(command);
    }
    if (command.gpu == GpuUse::kShared) {
      std::shared_lock<std::shared_mutex> lock(gpu_);
      return inner_.Run(command);
    }
    return inner_.Run(command);
  }

 private:
  ProcessRunner& inner_;
  std::shared_mutex gpu_;
};

}  // namespace labkit
