// How a run under a sanitizer ended (compute-sanitizer on a GPU, ThreadSanitizer on the CPU
// backend), read only from what labgrade saw for itself: the exit status, a timeout, and the
// harness's own lines. Never from the tool's log, which lies in the folder the student's process
// may write (docs/THREAT_MODEL.md): a log cut short or rewritten changes the words of a finding,
// not whether there is one.
//
// Why the exit status holds: compute-sanitizer is the parent of the student's process and gives
// its --error-exitcode when it found anything; ThreadSanitizer ends the process at its first
// report with its own exit code (HarnessCommand, harness_request.cpp). The program can end the run
// first (exit, abort, a crash) but not turn a finding into the clean end, which needs the harness's
// "done" line, every case run, and status 0.
#pragma once

#include "harness_runner.h"

namespace labkit {

enum class SanitizerEnd {
  kClean,         // status 0, the harness reached its end and every case ran ("ok")
  kFound,         // the tool's exit status says it found something (its log may say what)
  kNotStarted,    // the grader could not start the command (nor, for a replay, its record run)
  kHarnessError,  // the harness's own set-up failed (an "error" line)
  kTimedOut,
  kIncomplete,  // any other end: a signal, another status, no "done" line, a case not run
};

// `found_exit_code`: the status the tool was told to end with when it finds something
// (kComputeSanitizerFoundExitCode, kThreadSanitizerFoundExitCode).
SanitizerEnd ClassifySanitizerEnd(const HarnessRun& run, int found_exit_code);

// Whether the harness wrote anything of its own before the end (its device line, a case): when it
// did not, the tool most likely never got the program going. Only for wording which "not graded"
// it is: both readings are grader errors.
bool HarnessSpoke(const HarnessRun& run);

}  // namespace labkit
