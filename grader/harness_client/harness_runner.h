// Running a built harness on a set of cases (docs/DESIGN.md, "Harness protocol"): writes the
// request and the input matrices (harness_request.h), runs the harness under limits (and, on
// request, under compute-sanitizer or with a given emulator thread order), after a record run
// where the function's device work is replayed (recorded_plans.h), and reads back what it reported
// (harness_response.h). Nothing here judges a result.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness_protocol.h"  // case statuses, exit statuses, MemoryRefusal
#include "lab_spec.h"
#include "process.h"

namespace labkit {

struct MatrixCase {
  std::string id;
  Shape shape;
  std::vector<float> A, B;
  std::string exercise;  // the harness exercise this case runs; empty: the request's
  // In a counting run, whose other cases run uncounted, in the order and from the state they run
  // in elsewhere (a launch cannot tell it is the counted one by what ran before it). A counting
  // run in which no case is marked counts them all.
  bool counted = false;
};

struct TimingSpec {
  Shape shape;
  std::vector<std::vector<float>> A_sets, B_sets;
  Reps reps;
};

// 2 GiB: several times what the largest timed case needs (2048^3, a few input sets), and 16
// harnesses at once still fit on a 40 GB GPU.
inline constexpr long long kHarnessDeviceMemoryBytes = 2LL << 30;

struct HarnessOptions {
  std::string exercise;
  bool exact_layout = false;      // each matrix in its own allocation (for memory checkers)
  std::string emu_order;          // CPU backend: forward | reverse | random:SEED; empty: default
  std::string emu_kernels_json;   // CPU backend: the resource report for the occupancy API
  std::string sanitizer_tool;     // GPU backend: memcheck | racecheck; empty: none
  bool thread_sanitizer = false;  // CPU backend: a --tsan build, whose reports are collected
  // CPU backend (every build but ThreadSanitizer's is instrumented): each launch reports its
  // memory accesses (LaunchInfo).
  bool count_accesses = false;
  // GPU backend: the replay counts each launch's loads and stores with the GPU's profiler
  // (gpu_counters.h) into LaunchInfo::accesses.
  bool gpu_counters = false;
  // The first pause before a counting run is tried again (gpu_counters.h, kCountingAttempts).
  std::chrono::milliseconds counting_retry_pause{500};
  double timeout_seconds = 60;
  std::size_t output_limit = 1 << 20;
  const TimingSpec* timing = nullptr;
  bool occupancy_probe = false;  // also report the occupancy API's answers for launched kernels
  bool list_launches = false;    // query harness: each case's launches listed (a counted run)
  // Record and replay (docs/THREAT_MODEL.md): the student's function runs once in a record
  // process on inputs of its own, and the device work it asked for is replayed on the cases'
  // inputs in a process where none of its host code runs. Off: the function runs on the inputs
  // itself (host-side exercises).
  bool replay = false;
  // Record and replay: another build of the same sources (the default build, for the
  // -fmad=false, counting and ThreadSanitizer builds) whose finished record runs this build's
  // replay may use, translated (plan_translation.h), instead of a record process of its own.
  std::string plans_from;
  // Record and replay: cases (shapes only; their inputs are never read) that the record run also
  // records, after the run's own, for checks that come later (the other exercises' cases, the
  // counted case of `technique.measured`). A later run whose cases earlier recordings hold
  // replays their plans without a record process of its own: on a GPU shared by a batch, each
  // process start is a CUDA context that queues behind the rest.
  std::vector<MatrixCase> record_also;
  // False: a program of the CPU backend (the emulator's look at a GPU's failure), which takes no
  // turn at the GPU gate: a timed run must not wait for it to end, nor it for a timed run.
  bool uses_gpu = true;
  // GPU backend: the device memory the harness process may hold at once (its allocations and the
  // student's), so that one submission cannot starve the others sharing the GPU.
  long long device_memory_bytes = kHarnessDeviceMemoryBytes;
};

// What a launch's threads did to memory, counted by the CPU backend in a counting run (emu's
// labkit_emu/access_counts.h; their names: harness_protocol.h's access_count); a count missing or
// of the wrong type reads as 0.
struct MemoryAccesses {
  long long global_load_bytes = 0;
  // CPU backend: the loads charged per warp, as a GPU's profiler charges them (its busiest
  // thread's for every thread of the warp; emu's access_counts.h). A GPU's own count is that
  // already: 0 there.
  long long warp_global_load_bytes = 0;
  // The global loads a launch is charged, on either backend: as a GPU's profiler counts them, a
  // warp's load instructions each as if every thread of the warp had loaded. One thread that loads
  // operands for itself and keeps them to itself is charged as its whole warp.
  long long ChargedGlobalLoadBytes() const {
    return warp_global_load_bytes > global_load_bytes ? warp_global_load_bytes : global_load_bytes;
  }
  long long global_store_bytes = 0;
  long long shared_loads = 0;
  long long shared_stores = 0;
  long long barriers = 0;  // __syncthreads() passed, once per block and barrier
  // CPU backend: the bytes of fixed-size __shared__ arrays the largest block declared; GPU: 0.
  long long static_shared_bytes = 0;
};

struct LaunchInfo {
  std::string kernel;  // mangled
  long long grid[3] = {0, 0, 0};
  long long block[3] = {0, 0, 0};
  long long dynamic_shared_bytes = 0;
  std::optional<MemoryAccesses> accesses;  // only in a counting run
};

// A copy the student's code made, or host-visible memory it set up (common/harness/transfer_log.h).
struct TransferInfo {
  std::string call;  // the runtime function, e.g. cudaMemcpy
  std::string kind;  // one of harness_protocol.h's transfer_kind words, or what a forger wrote
  long long bytes = 0;
};

// Where the harness put one of a case's matrices in device memory (its "buffers" list), for
// naming the matrix at an address compute-sanitizer reports. Told by the process the student's
// code runs in: it names a matrix in a message and decides nothing.
struct HarnessBuffer {
  std::string matrix;  // "A", "B" or "C"
  std::uint64_t address = 0;
  long long bytes = 0;
};

struct CaseRun {
  std::string id;
  bool reported = false;  // false: the process died before finishing this case
  // One of harness_protocol.h's case_status words, or "reported_twice" (a second line for the
  // case, written by something other than the harness).
  std::string status;
  std::string error;
  std::string detail;
  std::vector<float> C;
  std::vector<LaunchInfo> launches;     // what the student's code launched, in order
  std::vector<TransferInfo> transfers;  // what it copied between host and device, in order
  std::vector<HarnessBuffer> buffers;   // A, B and C, where the harness allocated them
  nlohmann::json
      values;  // a query's answers, {"name": {"student", "expected", "hints"}}; else null
  // The case's parameters as the harness worked the expected values out for them (an object of
  // numbers; null when it said nothing), which labgrade holds against the case it asked for.
  nlohmann::json worked_out_for;
  // The process's first refusal of device memory, on the line of the case it happened in (or the
  // first one after it).
  std::optional<MemoryRefusal> memory_refused;
};

struct HarnessRun {
  ProcessResult process;
  ProcessResult record_process;  // with HarnessOptions::replay: the run of the function itself
  bool record_finished = false;  // ... which reached its end
  std::optional<MemoryRefusal> record_memory_refused;  // ... and the budget's refusal there
  bool done = false;                                   // the harness reached its end
  std::string harness_error;  // the kit's own set-up failed (bad request, unreadable file)
  nlohmann::json device;      // the "device" line
  std::vector<CaseRun> cases;
  std::vector<nlohmann::json> emu_diagnostics;  // CPU backend diagnostics, in order
  // compute-sanitizer's or ThreadSanitizer's own report. It lies where the program can write, so
  // it only words a finding; whether there is one is the tool's exit status (sanitizer_end.h).
  std::string sanitizer_log;
  std::optional<nlohmann::json> timing;  // the "timing" line
  std::vector<std::vector<float>> timing_outputs;
  std::vector<nlohmann::json> occupancy;  // "occupancy" lines, with occupancy_probe
  // With gpu_counters: whether ncu's log held its table of counts (false: ncu could not count
  // here, and counter_log says what it said instead).
  bool counted = false;
  std::string counter_log;
};

// With gpu_counters, a run that was not counted: what ncu said went wrong, in its log or the
// program's output ("" when it said nothing).
std::string CounterError(const HarnessRun& run);
// ... said as a note of a pass not final: "Nsight Compute could not count this GPU's `what` here
// (how the process ended: ncu's error, else the program's last line)".
std::string NotCountedNote(const HarnessRun& run, const std::string& what);

// A CUDA toolkit program (compute-sanitizer, ncu) by where toolkits put it, else by PATH.
std::string FindCudaTool(const std::string& name);

HarnessRun RunHarness(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<MatrixCase>& cases);

// A query exercise's calls (lab.yaml `kind: query`, grader/judge/query_grader.h): the function
// called once per parameter set, case "q<i>" for params[i], with no matrices; each case's
// CaseRun::values holds what the harness reported. The same command, limits and reading of the
// response as RunHarness, which it shares.
HarnessRun RunQueries(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<ParamSet>& params);

}  // namespace labkit
