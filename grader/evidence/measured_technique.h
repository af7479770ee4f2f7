// The technique judged from behaviour (lab.yaml `technique.measured`): what the kernels an
// exercise's function launched did to memory, counted by the CPU backend in one counting run of
// the default build (every access of it calls the emulator). Summed over every launch, so that a
// kernel that only declares tiles and a barrier cannot earn the marks for another one that does
// the work.
#pragma once

#include <string>
#include <vector>

#include "harness_runner.h"
#include "lab_spec.h"

namespace labkit {

// The harness lists at most this many launches of one call (common/harness/capture/
// capture_window.h); a call that reaches it may have launched more, whose accesses the grader
// cannot see.
inline constexpr std::size_t kLaunchesListed = 64;

// `value` with one decimal ("128.0"), as the measured figures are given to students.
std::string Fixed1(double value);

// "" when `launches` (what one case of `rule.shape` launched, with their counts) satisfy `rule`,
// else the student-facing reason. `transfers`: what the same case copied. Device memory copied
// into __constant__ memory fails the rule whatever the counts say: a kernel's reads of it there
// are constant loads, which neither backend counts as global ones (refilled between launches, 64
// KiB serve any number of tiles).
std::string CheckMeasuredTechnique(const MeasuredTechnique& rule,
                                   const std::vector<LaunchInfo>& launches,
                                   const std::vector<TransferInfo>& transfers = {});

}  // namespace labkit
