// GPU backend: what the launched kernels did to memory, read from the hardware counters by the
// replay process itself (CUPTI's range profiler, common/harness/capture/launch_counters.h), so that
// lab.yaml's `technique.measured` judges behaviour on a GPU as the CPU backend's counting runs do
// on the emulator (measured_technique.h). The harness writes the counts as Nsight Compute's CSV
// table (harness_protocol.h's gpu_metric), which the kit read from ncu before, to the file named
// kCounterTable beside its request.
//
// The profiler counts SASS instructions per warp, not per thread: a warp's load instruction counts
// once whether 1 or 32 of its threads take part. Each count is scaled by the threads a warp of the
// launch holds (the block's threads over its warps), which is exact for full blocks and counts a
// guarded-off thread of a partial tile as if it had loaded (a little against the student, never
// for). A vector load (float4) counts as one float: in the student's favour, and still far from
// what a kernel without tiles loads. Atomics that return the old value are loads and stores,
// cp.async copies loads; bulk copies, counted in bytes by the profiler, are loads of that many
// bytes. Barriers have no counter on this GPU; a missing barrier shows
// up as a race under racecheck instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// One kernel launch as the table reports it.
struct ProfiledLaunch {
  std::string kernel;  // mangled
  long long block_threads = 0;
  long long global_load_instructions = 0;  // per warp
  long long global_store_instructions = 0;
  long long shared_load_instructions = 0;
  long long shared_store_instructions = 0;
  long long global_atomic_instructions = 0;     // atomics that return the old value
  long long global_reduction_instructions = 0;  // atomics that do not
  long long async_copy_instructions = 0;        // cp.async, global to shared
  long long bulk_copy_bytes = 0;                // bulk and tensor copies from global memory
};

// Where every counting run of the machine takes its turn at the GPU's counters: the lock file
// harness_protocol.h names (gpu_metric::kLockFile), which MakeCounterLock makes, in labgrade's
// /tmp, shown read-only to the counting runs (Command::lock_dir) and to no other sandbox.
inline constexpr const char* kCounterLockDir = "/tmp/labkit-gpu-counters";

// Makes the lock file in kCounterLockDir where it is missing: readable by every sandbox's user,
// writable by none. False when it could not be made (the counting runs then take turns only by
// trying again when the counters are busy).
bool MakeCounterLock();

// The counting run's table, beside its request.
inline constexpr const char* kCounterTable = "counters.csv";

// How many times a counting run is tried when the table says why nothing was counted
// (harness_runner.cpp, RunHarnessProcess): the counters taken by another session, for a moment.
// Under Nsight Compute, three tries a few hundred milliseconds apart were not enough under a batch
// of ten jobs (lab 02's counted run on an H100, 2026-11-26): the pause doubles from
// HarnessOptions's counting_retry_pause, so five tries span about 7.5 s.
inline constexpr int kCountingAttempts = 5;

// The launches in the table (Nsight Compute's CSV layout, `--csv --print-units base`), in launch
// order. Lines that are not part of the table are skipped; nullopt when there is no table at all
// (the profiler could not count: no permission, an unsupported GPU, counters busy).
std::optional<std::vector<ProfiledLaunch>> ParseCounterLog(const std::string& text);

// What the table says went wrong (its first "==ERROR==" line), or "".
std::string CounterLogError(const std::string& log);

// Whether that line says this machine cannot count for anyone (gpu_metric::kCannotCountHere: no
// permission, no CUPTI, a GPU it cannot count on), where a grade may rest on what kernels declare.
// False for a table of counts, for no table, and for a run that failed to count on a machine that
// counts (gpu_metric::kCountingFailed): that is the grader's trouble in that run, never a pass.
bool CannotCountHere(const std::string& log);

// Whom the NVIDIA driver lets read the GPU's counters, by its RmProfilingAdminOnly setting in
// `params` (/proc/driver/nvidia/params): the one cause of CannotCountHere that labgrade can check
// itself, for a table written where the student's code runs (lab 02's counted run). kUnknown
// where the file cannot be read or does not say.
enum class CounterAccess { kUnknown, kEveryone, kAdminsOnly };
CounterAccess DriverCounterAccess(const std::string& params = "/proc/driver/nvidia/params");

// The last line of `output` that is not blank, at most 300 characters ("" if none).
std::string LastLine(const std::string& output);

// A launch's counts as the thread-level accesses measured_technique.h judges.
MemoryAccesses AccessesOf(const ProfiledLaunch& launch);

// Gives each launch the harness reported (over the cases `counted` marks, in order; every case
// where it is empty) the counts of the next profiled launch of the same kernel. A launch the table
// does not report keeps no counts, which the technique check reports as the grader's fault.
void AttachCounts(std::vector<CaseRun>& cases, const std::vector<ProfiledLaunch>& profiled,
                  const std::vector<bool>& counted = {});

}  // namespace labkit
