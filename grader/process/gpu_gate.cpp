#include "gpu_gate.h"

#include <algorithm>

#include "command_trace.h"
#include "gpu_turn_server.h"
#include "gpu_turns.h"

namespace labkit {

ProcessResult GpuGateRunner::Run(const Command& command) {
  if (command.gpu == GpuUse::kNone) return inner_.Run(command);
  if (command.gpu == GpuUse::kTurns) return RunTakingTurns(command);
  const bool exclusive = command.gpu == GpuUse::kExclusive;
  const double asked = TraceClock();
  const GpuGate::Hold hold = gate_.Enter(exclusive);
  // Where jobs stood idle (command_trace.h): the drains before timed runs, and what they held up.
  const double waited = TraceClock() - asked;
  if (waited >= 0.01 && command.argv.size() > command.wrapper_length)
    TraceEvent(waited, 0, asked,
               std::string(exclusive ? "gpu gate wait, timed: " : "gpu gate wait, shared: ") +
                   command.argv[command.wrapper_length]);
  ProcessResult result = inner_.Run(PlacedOn(command, hold.gpu));
  gate_.Leave(hold, exclusive);
  return result;
}

Command GpuGateRunner::PlacedOn(const Command& command, std::size_t gpu) const {
  Command placed = command;
  const std::string visible = gate_.VisibleDevices(gpu);
  if (!visible.empty()) placed.env["CUDA_VISIBLE_DEVICES"] = visible;
  return placed;
}

ProcessResult GpuGateRunner::RunTakingTurns(const Command& command) {
  const std::size_t gpu = gate_.Place();
  GpuTurnServer turns(gate_, gpu,
                      command.argv.size() > command.wrapper_length
                          ? command.argv[command.wrapper_length]
                          : std::string("(no program)"));
  if (!turns.ok()) {
    ProcessResult failed;
    failed.start_error = "no socket for the program's GPU turns: " + turns.error();
    return failed;
  }
  static_assert(gpu_turns::kGpuTurnDescriptor == 3, "the first passed descriptor is 3");
  Command placed = PlacedOn(command, gpu);
  // The turns' socket first (descriptor 3), then whatever the command passes itself.
  placed.passed_descriptors.insert(placed.passed_descriptors.begin(), turns.program_end());
  placed.env[gpu_turns::kGpuTurnsVariable] = std::to_string(gpu_turns::kGpuTurnDescriptor);
  ProcessResult result = inner_.Run(placed);
  turns.Finish();
  return result;
}

GpuGate::GpuGate(std::vector<std::string> gpus, std::chrono::milliseconds drain_patience)
    : visible_(std::move(gpus)),
      drain_patience_(drain_patience),
      gpus_(std::max<std::size_t>(1, visible_.size())) {}

std::string GpuGate::VisibleDevices(std::size_t gpu) const {
  return gpu < visible_.size() ? visible_[gpu] : "";
}

std::size_t GpuGate::LeastBusy(bool only_unclaimed) const {
  std::size_t best = gpus_.size();
  for (std::size_t g = 0; g < gpus_.size(); ++g)
    if (!(only_unclaimed && gpus_[g].claimed) &&
        (best == gpus_.size() || gpus_[g].shared.size() < gpus_[best].shared.size()))
      best = g;
  return best;
}

void GpuGate::ClaimDrained(std::unique_lock<std::mutex>& lock, std::size_t gpu) {
  Gpu& g = gpus_[gpu];
  for (;;) {
    g.claimed = true;
    if (changed_.wait_for(lock, drain_patience_, [&] { return g.shared.empty(); })) return;
    // Slow runs hold up the drain: the GPU goes back to the shared runs until they have ended.
    const uint64_t newest_slow = *g.shared.rbegin();
    g.claimed = false;
    changed_.notify_all();
    changed_.wait(lock, [&] {
      return !g.claimed && (g.shared.empty() || *g.shared.begin() > newest_slow);
    });
  }
}

template <class Choose>
GpuGate::Hold GpuGate::EnterWhere(bool exclusive, Choose choose) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (exclusive) {
    ++timed_waiting_for_a_gpu_;
    changed_.wait(lock, [&] { return choose() < gpus_.size(); });
    --timed_waiting_for_a_gpu_;
    const std::size_t gpu = choose();
    ClaimDrained(lock, gpu);
    return {gpu, 0};
  }
  changed_.wait(lock, [&] { return timed_waiting_for_a_gpu_ == 0 && choose() < gpus_.size(); });
  const std::size_t gpu = choose();
  const uint64_t ticket = next_ticket_++;
  gpus_[gpu].shared.insert(ticket);
  return {gpu, ticket};
}

GpuGate::Hold GpuGate::Enter(bool exclusive) {
  return EnterWhere(exclusive, [this] { return LeastBusy(true); });
}

GpuGate::Hold GpuGate::EnterOn(std::size_t gpu, bool exclusive) {
  (void)gpus_.at(gpu);  // a GPU the gate has
  return EnterWhere(exclusive, [this, gpu] { return gpus_[gpu].claimed ? gpus_.size() : gpu; });
}

std::size_t GpuGate::Place() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t unclaimed = LeastBusy(true);
  return unclaimed < gpus_.size() ? unclaimed : LeastBusy(false);
}

void GpuGate::Leave(const Hold& hold, bool exclusive) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exclusive)
      gpus_[hold.gpu].claimed = false;
    else
      gpus_[hold.gpu].shared.erase(hold.ticket);
  }
  changed_.notify_all();
}

}  // namespace labkit
