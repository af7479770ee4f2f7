// GPU backend: what the launched kernels did to memory, read from the hardware counters by Nsight
// Compute (ncu), so that lab.yaml's `technique.measured` judges behaviour on a GPU as the CPU
// backend's counting runs do on the emulator (measured_technique.h).
//
// ncu counts SASS instructions per warp, not per thread: a warp's load instruction counts once
// whether 1 or 32 of its threads take part. Each count is scaled by the threads a warp of the
// launch holds (the block's threads over its warps), which is exact for full blocks and counts a
// guarded-off thread of a partial tile as if it had loaded (a little against the student, never
// for). A vector load (float4) counts as one float: in the student's favour, and still far from
// what a kernel without tiles loads. Barriers have no counter on this GPU; a missing barrier shows
// up as a race under racecheck instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// One kernel launch as ncu reported it.
struct ProfiledLaunch {
  std::string kernel;  // mangled (ncu runs with --print-kernel-base mangled)
  long long block_threads = 0;
  long long global_load_instructions = 0;  // per warp
  long long global_store_instructions = 0;
  long long shared_load_instructions = 0;
  long long shared_store_instructions = 0;
};

// Where every ncu session of the machine keeps its lock files (Command::tool_lock_dir). ncu
// serialises its own counting across processes through lock files under $TMPDIR; each sandbox
// has a /tmp of its own, so the sessions are given this one folder instead (labgrade's /tmp, which
// no sandbox sees otherwise). Without bubblewrap the sandbox cannot share it, and holds a
// machine-wide lock around each whole ncu process instead.
inline constexpr const char* kCounterLockDir = "/tmp/labkit-gpu-counters";

// How many times a counting run is tried when ncu reports an error and writes no table
// (harness_runner.cpp, RunHarnessProcess): the counters taken by another session, for a moment.
// Three tries a few hundred milliseconds apart were not enough under a batch of ten jobs (lab 02's
// counted run on an H100, 2026-11-26): the pause doubles from HarnessOptions's
// counting_retry_pause, so five tries span about 7.5 s.
inline constexpr int kCountingAttempts = 5;

// The words put before the harness's command line so that ncu counts every kernel launch and
// writes the counts as CSV to `log_path`.
std::vector<std::string> CounterCommandPrefix(const std::string& ncu, const std::string& log_path);

// The launches in ncu's CSV log (`--csv --print-units base`), in launch order. Lines that are not
// part of the table (ncu's own notes, the program's output) are skipped; nullopt when the log
// holds no table at all (ncu could not count: no permission, an unsupported GPU).
std::optional<std::vector<ProfiledLaunch>> ParseCounterLog(const std::string& text);

// What ncu said went wrong in `log` (its first "==ERROR==" line), or "".
std::string CounterLogError(const std::string& log);

// The last line of `output` that is not blank, at most 300 characters ("" if none).
std::string LastLine(const std::string& output);

// A launch's counts as the thread-level accesses measured_technique.h judges.
MemoryAccesses AccessesOf(const ProfiledLaunch& launch);

// Gives each launch the harness reported (over `cases`, in order) the counts of the next profiled
// launch of the same kernel. A launch ncu did not report keeps no counts, which the technique
// check reports as the grader's fault.
void AttachCounts(std::vector<CaseRun>& cases, const std::vector<ProfiledLaunch>& profiled);

}  // namespace labkit
