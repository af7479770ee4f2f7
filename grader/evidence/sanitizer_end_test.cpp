// The end of a sanitizer's run is read from the exit status and the harness's lines alone
// (sanitizer_end.h): the log is not an input, so no log can make a finding or clear one.
#include "sanitizer_end.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// A run that went as it should: status 0, "done", both cases reported ok.
HarnessRun CleanRun() {
  HarnessRun run;
  run.process.started = true;
  run.process.exit_code = 0;
  run.done = true;
  run.device = {{"type", "device"}};
  run.cases = {{"a", true, "ok"}, {"b", true, "ok"}};
  return run;
}

constexpr int kFound = kComputeSanitizerFoundExitCode;

TEST(SanitizerEnd, StatusZeroWithEveryCaseRunIsClean) {
  EXPECT_EQ(ClassifySanitizerEnd(CleanRun(), kFound), SanitizerEnd::kClean);
}

TEST(SanitizerEnd, TheFoundStatusIsAFindingWhateverElseTheRunLeft) {
  HarnessRun run = CleanRun();
  run.process.exit_code = kFound;
  EXPECT_EQ(ClassifySanitizerEnd(run, kFound), SanitizerEnd::kFound);
  // A finding stands with no log, no done line and no case reported (ThreadSanitizer ends the
  // process at its first report).
  run.done = false;
  run.cases[0].reported = false;
  run.sanitizer_log.clear();
  EXPECT_EQ(ClassifySanitizerEnd(run, kFound), SanitizerEnd::kFound);
  // The other tool's status is not this tool's finding.
  EXPECT_EQ(ClassifySanitizerEnd(run, kThreadSanitizerFoundExitCode), SanitizerEnd::kIncomplete);
}

// What a program can do to avoid the finding's status: leave early, be killed, write the done
// line itself and leave with 0 before its cases run. None of it reads as clean.
TEST(SanitizerEnd, EndingTheRunEarlyIsNeverClean) {
  HarnessRun exited_early = CleanRun();
  exited_early.done = false;  // exit(0) from a static initialiser or a kernel
  EXPECT_EQ(ClassifySanitizerEnd(exited_early, kFound), SanitizerEnd::kIncomplete);

  HarnessRun forged_done = CleanRun();
  forged_done.cases[1].reported = false;  // "done" written, then status 0, before case b
  EXPECT_EQ(ClassifySanitizerEnd(forged_done, kFound), SanitizerEnd::kIncomplete);

  HarnessRun case_failed = CleanRun();
  case_failed.cases[0].status = "cuda_error";
  EXPECT_EQ(ClassifySanitizerEnd(case_failed, kFound), SanitizerEnd::kIncomplete);

  HarnessRun aborted = CleanRun();
  aborted.process.exit_code = -1;
  aborted.process.signal = 6;
  EXPECT_EQ(ClassifySanitizerEnd(aborted, kFound), SanitizerEnd::kIncomplete);

  HarnessRun other_status = CleanRun();
  other_status.process.exit_code = 1;
  EXPECT_EQ(ClassifySanitizerEnd(other_status, kFound), SanitizerEnd::kIncomplete);

  // Under this build only, the record run left before recording a case: no replay was started.
  HarnessRun never_recorded;
  never_recorded.record_process.started = true;
  never_recorded.record_process.exit_code = 0;
  never_recorded.cases = {{"a", true, "not_recorded"}};
  EXPECT_EQ(ClassifySanitizerEnd(never_recorded, kFound), SanitizerEnd::kIncomplete);

  HarnessRun timed_out = CleanRun();
  timed_out.process.timed_out = true;
  timed_out.process.exit_code = -1;
  EXPECT_EQ(ClassifySanitizerEnd(timed_out, kFound), SanitizerEnd::kTimedOut);
}

TEST(SanitizerEnd, TheGradersOwnFailuresAreTheirOwnEnds) {
  HarnessRun not_started;
  not_started.process.start_error = "no such file";
  EXPECT_EQ(ClassifySanitizerEnd(not_started, kFound), SanitizerEnd::kNotStarted);
  HarnessRun harness_error = CleanRun();
  harness_error.done = false;
  harness_error.process.exit_code = 3;
  harness_error.harness_error = "cannot read A";
  EXPECT_EQ(ClassifySanitizerEnd(harness_error, kFound), SanitizerEnd::kHarnessError);
}

TEST(SanitizerEnd, TheHarnessSpokeWhenItWroteItsDeviceLineOrACase) {
  EXPECT_TRUE(HarnessSpoke(CleanRun()));
  HarnessRun silent;
  silent.cases = {{"a"}};
  EXPECT_FALSE(HarnessSpoke(silent));
  silent.cases[0].reported = true;
  EXPECT_TRUE(HarnessSpoke(silent));
}

}  // namespace
}  // namespace labkit
