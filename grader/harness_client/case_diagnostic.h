// Which of a run's CPU-backend diagnostics belongs to one case. The emulator writes its
// diagnostics to a file of their own, not to the case lines, so a failing case must not simply
// take the run's first one: that may be about another case's kernel (a bad copy in case 0 quoted
// for a launch failure in case 3).
#pragma once

#include <nlohmann/json.hpp>

#include "harness_runner.h"

namespace labkit {

// For a case that never reported (the process died in it), the last diagnostic written: a fault
// is written, then the process exits. For a case that reported a failure, the first diagnostic
// about a kernel this case launched. Null when none is about the case.
const nlohmann::json* EmuDiagnosticFor(const HarnessRun& run, const CaseRun& c);

}  // namespace labkit
