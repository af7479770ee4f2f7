#include "gpu_gate.h"

#include <algorithm>

#include "command_trace.h"

namespace labkit {

ProcessResult GpuGateRunner::Run(const Command& command) {
  if (command.gpu == GpuUse::kNone) return inner_.Run(command);
  const bool exclusive = command.gpu == GpuUse::kExclusive;
  const double asked = TraceClock();
  const std::size_t gpu = gate_.Enter(exclusive);
  const double waited = TraceClock() - asked;
  if (waited >= 0.01)
    TraceEvent(waited, 0, asked, std::string(exclusive ? "gpu gate wait, timed: " : "gpu gate wait, shared: ") +
                                     (command.argv.size() > command.wrapper_length
                                          ? command.argv[command.wrapper_length]
                                          : std::string()));
  Command placed = command;
  const std::string visible = gate_.VisibleDevices(gpu);
  if (!visible.empty()) placed.env["CUDA_VISIBLE_DEVICES"] = visible;
  ProcessResult result = inner_.Run(placed);
  gate_.Leave(gpu, exclusive);
  return result;
}

GpuGate::GpuGate(std::vector<std::string> gpus, int jobs, std::chrono::milliseconds longest_wait)
    : visible_(std::move(gpus)),
      longest_wait_(longest_wait),
      gpus_(std::max<std::size_t>(1, visible_.size())),
      jobs_left_(std::max(1, jobs)) {}

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

bool GpuGate::WindowMayOpen(Clock::time_point arrived) const {
  // A quarter of the jobs: enough timed runs to share a drain, few enough jobs standing idle.
  const int group = std::max(1, (jobs_left_ + 3) / 4);
  return shared_running_ == 0 || timed_waiting_ >= group ||
         Clock::now() - arrived >= longest_wait_;
}

std::size_t GpuGate::Enter(bool exclusive) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (exclusive) {
    ++timed_waiting_;
    const Clock::time_point arrived = Clock::now();
    while (!window_open_) {
      if (WindowMayOpen(arrived)) {
        window_open_ = true;
        changed_.notify_all();
        break;
      }
      changed_.wait_until(lock, arrived + longest_wait_);
    }
    changed_.wait(lock, [&] { return LeastBusyUnclaimed() < gpus_.size(); });
    --timed_waiting_;
    const std::size_t gpu = LeastBusyUnclaimed();
    gpus_[gpu].claimed = true;
    changed_.wait(lock, [&] { return gpus_[gpu].shared == 0; });
    return gpu;
  }
  changed_.wait(lock, [&] { return !window_open_ && LeastBusyUnclaimed() < gpus_.size(); });
  const std::size_t gpu = LeastBusyUnclaimed();
  ++gpus_[gpu].shared;
  ++shared_running_;
  return gpu;
}

void GpuGate::Leave(std::size_t gpu, bool exclusive) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exclusive) {
      gpus_[gpu].claimed = false;
      const bool any_claimed =
          std::any_of(gpus_.begin(), gpus_.end(), [](const Gpu& g) { return g.claimed; });
      if (timed_waiting_ == 0 && !any_claimed) window_open_ = false;
    } else {
      --gpus_[gpu].shared;
      --shared_running_;
    }
  }
  changed_.notify_all();
}

void GpuGate::JobFinished() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_left_ = std::max(1, jobs_left_ - 1);
  }
  changed_.notify_all();
}

}  // namespace labkit
