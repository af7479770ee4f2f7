#include "combined_run.h"

#include "case_diagnostic.h"

namespace labkit {

namespace {

// Case ids become file names and must stay apart: two parameter sets of one exercise share ids.
std::string GroupPrefix(std::size_t group) { return "g" + std::to_string(group) + "_"; }

}  // namespace

std::vector<HarnessRun> RunCombined(ProcessRunner& runner, const std::string& executable,
                                    const std::string& work_dir, HarnessOptions options,
                                    const std::vector<ExerciseCases>& groups) {
  std::vector<MatrixCase> all;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const MatrixCase& c : groups[g].cases) {
      MatrixCase renamed = c;
      renamed.id = GroupPrefix(g) + c.id;
      renamed.exercise = groups[g].run_id;
      all.push_back(std::move(renamed));
    }
  if (!groups.empty()) options.exercise = groups.front().run_id;
  HarnessRun shared = RunHarness(runner, executable, work_dir, options, all);

  std::vector<HarnessRun> parts;
  std::size_t next = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    HarnessRun part;
    part.process = shared.process;
    part.record_process = shared.record_process;
    part.record_finished = shared.record_finished;
    part.record_memory_refused = shared.record_memory_refused;
    part.counted = shared.counted;
    part.counter_log = shared.counter_log;
    part.done = shared.done;
    part.harness_error = shared.harness_error;
    part.device = shared.device;
    part.emu_diagnostics = DiagnosticsWithPrefix(shared.emu_diagnostics, GroupPrefix(g));
    part.sanitizer_log = shared.sanitizer_log;
    for (std::size_t i = 0; i < groups[g].cases.size(); ++i, ++next) {
      CaseRun r = std::move(shared.cases[next]);
      r.id = groups[g].cases[i].id;
      part.cases.push_back(std::move(r));
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace labkit
