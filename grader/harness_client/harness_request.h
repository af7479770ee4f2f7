// What a harness run is given (docs/DESIGN.md, "Harness protocol"): the request and the input
// matrices written into the run's folder, and the command line that runs the harness there (under
// compute-sanitizer or Nsight Compute when asked, with the emulator's and ThreadSanitizer's
// settings in its environment).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness_runner.h"
#include "result.h"

namespace labkit {

// Writes the request and its input matrices into `dir` (which ends with '/'); a failure (a full
// disk) is the kit's, not the student's, and comes back as the reason.
// `with_inputs` false: a record run's request, which names the cases' shapes only (the function
// is called there on values of the harness's own).
Status WriteRequest(const std::string& dir, const HarnessOptions& options,
                    const std::vector<MatrixCase>& cases, bool with_inputs = true,
                    const nlohmann::json& student_image = nullptr);

// Writes `request` into `dir` as the harness reads it (request_lines.h): its "cases" one a line in
// cases.jsonl, the rest (and "marks_counted", whether any case is marked "counted") in
// request.json. Both through WriteUntrustedFile: the folder is one the student's code ran in.
Status WriteHarnessRequest(const std::string& dir, nlohmann::json request);

// What makes this run one check and not another, in the request (matmul or query alike), where
// only the kit's code reads it: with gpu_counters, every launch counted by the GPU's profiler and
// the table written beside the request (gpu_counters.h); on the CPU backend, the emulator's thread
// order, worker threads and access counting (common/harness/run_settings/emulator_settings.h).
void AddRunSettings(const HarnessOptions& options, nlohmann::json& request);

// The command that runs `executable` on the request in `dir`.
// `mode`: "", "--record" or "--replay" (common/harness/harness_main.cpp).
// `kit_program`: `executable` is the kit's replay program, which holds no host code of the
// student's, so that a failed call of the CUDA API in it is the kit's to handle, never a finding
// of compute-sanitizer's.
Command HarnessCommand(const std::string& executable, const std::string& dir,
                       const HarnessOptions& options, const std::string& mode = "",
                       bool kit_program = false);

// The program's kernels and variables as labgrade read them off it (nm), for the harness to check
// what it replays against; null when the file is missing or unreadable.
nlohmann::json StudentImage(const std::string& executable);

// GPU: the kit's replay program for `executable`, where its build made one
// (grader/device_code/kit_replay_program.h): the program's path, its fatbinaries copied into `dir`
// and named in `student_image`'s "device_code". "" where there is none or a copy failed: the replay
// then runs in `executable` itself.
std::string UseKitReplayProgram(const std::string& executable, const std::string& dir,
                                nlohmann::json& student_image);

}  // namespace labkit
