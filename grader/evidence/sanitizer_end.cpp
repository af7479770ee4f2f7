#include "sanitizer_end.h"

#include <algorithm>

namespace labkit {

SanitizerEnd ClassifySanitizerEnd(const HarnessRun& run, int found_exit_code) {
  const ProcessResult& p = run.process;
  // A replay that never started because its record run ended before recording anything (a static
  // initialiser that leaves under this build only) is the program's doing, not the grader's.
  if (!p.started)
    return run.record_process.started ? SanitizerEnd::kIncomplete : SanitizerEnd::kNotStarted;
  const bool exited = !p.timed_out && p.signal == 0;
  if (exited && p.exit_code == found_exit_code) return SanitizerEnd::kFound;
  if (!run.harness_error.empty()) return SanitizerEnd::kHarnessError;
  if (p.timed_out) return SanitizerEnd::kTimedOut;
  const bool every_case_ran = std::all_of(run.cases.begin(), run.cases.end(), [](const CaseRun& c) {
    return c.reported && c.status == case_status::kOk;
  });
  if (exited && p.exit_code == 0 && run.done && every_case_ran) return SanitizerEnd::kClean;
  return SanitizerEnd::kIncomplete;
}

bool HarnessSpoke(const HarnessRun& run) {
  return run.device.is_object() || std::any_of(run.cases.begin(), run.cases.end(),
                                               [](const CaseRun& c) { return c.reported; });
}

}  // namespace labkit
