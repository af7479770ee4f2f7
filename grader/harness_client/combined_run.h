// Several exercises' cases in one harness process. Each process start costs a CUDA context (and,
// under compute-sanitizer, the tool's own start), and on a GPU shared by a batch's sixteen jobs
// those starts, not the kernels, were most of the time. The harness runs each case with the
// exercise the case names; this splits what came back into one HarnessRun per exercise, as if
// each had had a process of its own.
//
// What one exercise does in a shared process can spoil the next (a sticky CUDA error, a full
// device), so callers trust only what passed there and run anything else again on its own.
#pragma once

#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

struct ExerciseCases {
  std::string run_id;  // the harness exercise id, parameters included ("dynamic?block_side=8")
  std::vector<MatrixCase> cases;
};

// One process for all `groups` (their cases in order), with `options` otherwise as for one run.
// The result has one HarnessRun per group, holding its own cases under their own ids; the
// process (and its record's), its end, the device line, diagnostics, the sanitizer's log and
// the counters' are shared by all.
std::vector<HarnessRun> RunCombined(ProcessRunner& runner, const std::string& executable,
                                    const std::string& work_dir, HarnessOptions options,
                                    const std::vector<ExerciseCases>& groups);

}  // namespace labkit
