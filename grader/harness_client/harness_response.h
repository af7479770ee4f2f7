// Reading back what a harness run left in its folder (docs/DESIGN.md, "Harness protocol"):
// response.jsonl into a HarnessRun, the output matrices, the sanitizers' logs and ncu's counts.
// All of it was written by a process the student's code ran in: a line or field of the wrong
// type reads as unknown rather than stopping the grader, and nothing here judges a result.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// A launch as the harness's link wrap recorded it (an element of a case line's "launches"); a
// field of the wrong type reads as unknown.
LaunchInfo ParseLaunch(const nlohmann::json& launch);

// The budget's refusal a harness line reports ("device_memory_refused"), if any; a field of the
// wrong type reads as 0 or "".
std::optional<MemoryRefusal> ParseMemoryRefusal(const nlohmann::json& line);

// Reads `dir`/response.jsonl into `run`, whose cases are listed by id: the device, done, error,
// timing and occupancy lines, and each case line into its case. The harness reports a case once:
// a second line for it was written by something else, and marks it.
void ReadResponse(const std::string& dir, HarnessRun& run);

// The output matrix `name` of `count` floats. A missing or short output stays empty: the case is
// then judged as not having produced one.
std::vector<float> ReadOutput(const std::string& dir, const std::string& name, std::size_t count);

// A log the tools wrote where the student's code can write: bounded, never a FIFO or a link; ""
// when it cannot be read.
std::string ReadToolLog(const std::string& path);

// ThreadSanitizer writes its reports to <log_path>.<pid>, one file per process: those in `dir`,
// in order, and their text one after another.
std::vector<std::string> ThreadSanitizerLogs(const std::string& dir);
std::string ReadThreadSanitizerLogs(const std::string& dir);

// With options.gpu_counters: the counters' table, and each launch's counts where it held them, in
// the cases `counted` marks (AttachCounts).
void ReadCounters(const std::string& dir, const HarnessOptions& options, HarnessRun& run,
                  const std::vector<bool>& counted = {});

}  // namespace labkit
