#include "gpu_gate.h"

#include <algorithm>

#include "command_trace.h"

namespace labkit {

ProcessResult GpuGateRunner::Run(const Command& command) {
  if (command.gpu == GpuUse::kNone) return inner_.Run(command);
  const bool exclusive = command.gpu == GpuUse::kExclusive;
  const double asked = TraceClock();
  const std::size_t gpu = gate_.Enter(exclusive);
  // Where jobs stood idle (command_trace.h): the drains before timed runs, and what they held up.
  const double waited = TraceClock() - asked;
  if (waited >= 0.01 && command.argv.size() > command.wrapper_length)
    TraceEvent(waited, 0, asked,
               std::string(exclusive ? "gpu gate wait, timed: " : "gpu gate wait, shared: ") +
                   command.argv[command.wrapper_length]);
  Command placed = command;
  const std::string visible = gate_.VisibleDevices(gpu);
  if (!visible.empty()) placed.env["CUDA_VISIBLE_DEVICES"] = visible;
  ProcessResult result = inner_.Run(placed);
  gate_.Leave(gpu, exclusive);
  return result;
}

GpuGate::GpuGate(std::vector<std::string> gpus)
    : visible_(std::move(gpus)), gpus_(std::max<std::size_t>(1, visible_.size())) {}

std::string GpuGate::VisibleDevices(std::size_t gpu) const {
  return gpu < visible_.size() ? visible_[gpu] : "";
}

std::size_t GpuGate::LeastBusyUnclaimed() const {
  std::size_t best = gpus_.size();
  for (std::size_t g = 0; g < gpus_.size(); ++g)
    if (!gpus_[g].claimed && (best == gpus_.size() || gpus_[g].shared < gpus_[best].shared))
      best = g;
  return best;
}

std::size_t GpuGate::Enter(bool exclusive) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (exclusive) {
    ++timed_waiting_for_a_gpu_;
    changed_.wait(lock, [&] { return LeastBusyUnclaimed() < gpus_.size(); });
    --timed_waiting_for_a_gpu_;
    const std::size_t gpu = LeastBusyUnclaimed();
    gpus_[gpu].claimed = true;
    changed_.wait(lock, [&] { return gpus_[gpu].shared == 0; });
    return gpu;
  }
  changed_.wait(lock, [&] {
    return timed_waiting_for_a_gpu_ == 0 && LeastBusyUnclaimed() < gpus_.size();
  });
  const std::size_t gpu = LeastBusyUnclaimed();
  ++gpus_[gpu].shared;
  return gpu;
}

void GpuGate::Leave(std::size_t gpu, bool exclusive) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exclusive)
      gpus_[gpu].claimed = false;
    else
      --gpus_[gpu].shared;
  }
  changed_.notify_all();
}

}  // namespace labkit
