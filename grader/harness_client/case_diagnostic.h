// Which of a run's CPU-backend diagnostics belongs to one case. The emulator writes its
// diagnostics to a file of their own, not to the case lines; the harness tells it which case is
// running and it stamps each line with that case's id ("case"). A failing case takes only a
// diagnostic with its own id: never the run's first one, nor one about the same kernel in another
// case (an out-of-bounds read in case 517x300x263 quoted for a grid of 0 blocks in case 1x1x1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// For a case that never reported (the process died in it), the last diagnostic stamped with its
// id: a fault is written, then the process exits. For a case that reported a failure, the first.
// Null when none names the case (one written outside any case names none).
const nlohmann::json* EmuDiagnosticFor(const std::vector<nlohmann::json>& diagnostics,
                                       const std::string& case_id, bool reported);
const nlohmann::json* EmuDiagnosticFor(const HarnessRun& run, const CaseRun& c);

// The diagnostics of the cases whose ids start with `prefix` (one exercise's cases in a run
// shared by several, combined_run.h), stamped with their ids without it.
std::vector<nlohmann::json> DiagnosticsWithPrefix(const std::vector<nlohmann::json>& diagnostics,
                                                  const std::string& prefix);

}  // namespace labkit
