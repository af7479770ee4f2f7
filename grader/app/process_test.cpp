#include "process.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

ProcessResult RunShell(const std::string& script, double timeout = 10, std::size_t limit = 1 << 20) {
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", script};
  cmd.timeout_seconds = timeout;
  cmd.output_limit = limit;
  return runner.Run(cmd);
}

TEST(Process, CapturesOutputAndExitCode) {
  const ProcessResult r = RunShell("echo out; echo err >&2; exit 3");
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_EQ(r.Describe(), "exit status 3");
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  // The child forks a grandchild that would outlive it; the group kill must take both, and the
  // call must return at the deadline, not when the grandchild's sleep ends.
  const ProcessResult r = RunShell("sleep 30 & sleep 30", 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(r.Describe().rfind("timed out after", 0), 0u);
}

TEST(Process, OutputFloodIsCappedAndCounted) {
  const ProcessResult r = RunShell("head -c 100000 /dev/zero", 10, 1000);
  EXPECT_EQ(r.output.size(), 1000u);
  EXPECT_EQ(r.output_dropped, 99000u);
}

TEST(Process, SignalIsReported) {
  const ProcessResult r = RunShell("kill -SEGV $$");
  EXPECT_EQ(r.signal, 11);
  EXPECT_FALSE(r.Succeeded());
}

TEST(Process, MissingProgramIsNotACrashOfTheGrader) {
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/nonexistent/program"};
  const ProcessResult r = runner.Run(cmd);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_FALSE(r.Succeeded());
}

TEST(Process, EnvironmentIsAdded) {
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", "echo $LABKIT_TEST_VALUE"};
  cmd.env["LABKIT_TEST_VALUE"] = "forty-two";
  EXPECT_EQ(runner.Run(cmd).output, "forty-two\n");
}

}  // namespace
}  // namespace labkit
