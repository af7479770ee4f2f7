// GPU backend, labgrade's counting run (lab.yaml `technique.measured`): how many load and store
// instructions each replayed kernel launch executed, counted by the GPU's own profiler inside the
// replay process (CUPTI's range profiler, one range per launch). The replay holds none of the
// student's host code, so the counts come from a process the student's function never ran in,
// as the outputs do. It replaced an Nsight Compute session per submission, which cost a process
// of its own and about a second of the machine's serialised GPU start-up (bench/results,
// 2026-11-26).
//
// A GPU's counters serve one profiling session at a time. Each launch is counted in a session of
// its own (the launch wrap hands it to CountedLaunch), and the counting runs of a batch take turns
// per launch through the lock of a file labgrade makes in the folder $LABKIT_COUNTER_LOCK_DIR names
// (its kCounterLockDir, shown read-only to every counting run); a session that still finds the
// counters busy tries again for a few seconds. Where counting cannot be done, the table says why
// instead, and labgrade runs the process again or falls back on what the kernels declare.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness_protocol.h"
#include "launch_log.h"

namespace labkit {

class LaunchCounting {
 public:
  // Counts every kernel launched from now on, until WriteTable.
  LaunchCounting();
  ~LaunchCounting();
  LaunchCounting(const LaunchCounting&) = delete;
  LaunchCounting& operator=(const LaunchCounting&) = delete;

  // Whether the launches from now on are counted (true at first): a counting run counts the
  // launches of the cases labgrade marked, and runs the others as every other run does.
  void Arm(bool counted) { armed_ = counted; }

  // Stops counting and writes the counts of every launch counted, in order, to `path` as
  // harness_protocol.h's gpu_metric table; or, when the profiler could not count one, a line that
  // says why. Launches a record run only noted (lab 02's query functions record and replay in one
  // process) ran nothing and are not in the table; labgrade matches the table's launches to the
  // case's by kernel name, in order (AttachCounts).
  void WriteTable(const std::string& path);

 private:
  friend bool CountedLaunch(const LaunchRecord& noted, const std::function<void()>& launch);
  void Count(const LaunchRecord& noted, const std::function<void()>& launch);
  struct Session;
  std::unique_ptr<Session> session_;
  std::string error_;
  bool armed_ = true;
  // The word of the table's error line (gpu_metric::kCannotCountHere or kCountingFailed).
  const char* failure_kind_ = gpu_metric::kCountingFailed;
};

// GPU launch wrap: while a LaunchCounting lives, runs `launch` (the launch `noted`) counted and
// returns true; otherwise does nothing and returns false (the caller launches as usual).
bool CountedLaunch(const LaunchRecord& noted, const std::function<void()>& launch);

}  // namespace labkit
