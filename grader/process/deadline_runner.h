// A submission's overall time limit in a batch: every command it causes gets at most the time
// left, and none starts once it is spent, so that no submission (one that hangs at every step, a
// grader step that waits) can hold a batch's worker for longer than the limit.
#pragma once

#include <chrono>

#include "process.h"

namespace labkit {

class DeadlineRunner : public ProcessRunner {
 public:
  DeadlineRunner(ProcessRunner& inner, double seconds)
      : inner_(inner),
        seconds_(seconds),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(seconds))) {}

  ProcessResult Run(const Command& command) override;
  bool Expired() const { return std::chrono::steady_clock::now() >= deadline_; }
  double seconds() const { return seconds_; }

 private:
  ProcessRunner& inner_;
  double seconds_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace labkit
