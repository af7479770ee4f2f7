// The CPU backend counts accesses through the emulator's hooks in its default build (emu's
// access_counts.h); it has no profiler to ask, and labgrade never asks it for a GPU's table.
// CountedLaunch never hands a launch over here, so LaunchCounting::Count is not needed.
#include <fstream>

#include "harness_protocol.h"
#include "launch_counters.h"

namespace labkit {

struct LaunchCounting::Session {};

LaunchCounting::LaunchCounting() : error_("the CPU backend has no GPU profiler") {}
LaunchCounting::~LaunchCounting() = default;

bool CountedLaunch(const LaunchRecord&, const std::function<void()>&) { return false; }

void LaunchCounting::WriteTable(const std::string& path) {
  std::ofstream(path) << gpu_metric::kErrorMark << gpu_metric::kCannotCountHere << ": " << error_
                      << "\n";
}

}  // namespace labkit
