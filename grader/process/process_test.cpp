#include "process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>

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

// A passed descriptor is the child's 3, whatever number labgrade's copy has; labgrade's other
// descriptors (this pipe's read end, close-on-exec) are not the child's.
TEST(Process, PassedDescriptorsBecomeTheChildsThreeOnward) {
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/bin/sh", "-c",
              "echo through-three >&3; test -e /proc/$$/fd/" + std::to_string(pipe_fds[0]) +
                  " && echo leaked; exit 0"};
  cmd.passed_descriptors = {pipe_fds[1]};
  const ProcessResult r = runner.Run(cmd);
  close(pipe_fds[1]);
  char got[64] = {};
  const ssize_t n = read(pipe_fds[0], got, sizeof got - 1);
  close(pipe_fds[0]);
  EXPECT_TRUE(r.Succeeded()) << r.Describe() << r.output;
  EXPECT_EQ(std::string(got, n > 0 ? n : 0), "through-three\n");
  if (pipe_fds[0] != 3) EXPECT_EQ(r.output, "");
}

// A descriptor labgrade opened without close-on-exec (a stream of another job's, open at this
// fork) is not the command's.
TEST(Process, LabgradesOtherDescriptorsAreClosedInTheCommand) {
  const int open_elsewhere = open("/dev/null", O_WRONLY);
  ASSERT_GE(open_elsewhere, 0);
  const ProcessResult r = RunShell("test -e /proc/$$/fd/" + std::to_string(open_elsewhere) +
                                   " && echo inherited; exit 0");
  close(open_elsewhere);
  EXPECT_TRUE(r.Succeeded()) << r.Describe();
  EXPECT_EQ(r.output, "");
}

// dd holds its 256 MiB buffer while it waits to write into a pipe nobody reads: the memory stays
// resident until the poll sees it, however fast this machine fills it.
constexpr const char* kHold256MiB = "dd if=/dev/zero bs=256M count=1 2>/dev/null | sleep 8";

TEST(Process, ResidentMemoryAboveTheLimitKillsTheTree) {
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", std::string("echo before; ") + kHold256MiB + "; echo survived"};
  cmd.resident_memory_limit = 64LL << 20;
  const ProcessResult r = runner.Run(cmd);
  EXPECT_TRUE(r.memory_exceeded);
  EXPECT_EQ(r.signal, SIGKILL) << r.Describe();
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(r.seconds, 6.0);        // caught by the poll, not by sleep ending
  EXPECT_EQ(r.output, "before\n");  // what it wrote before is kept; nothing ran after
}

TEST(Process, ResidentMemoryUnderTheLimitRuns) {
  SystemProcessRunner runner;
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", "dd if=/dev/zero bs=8M count=1 2>/dev/null | sleep 0.5"};
  cmd.resident_memory_limit = 256LL << 20;
  const ProcessResult r = runner.Run(cmd);
  EXPECT_FALSE(r.memory_exceeded);
  EXPECT_TRUE(r.Succeeded()) << r.Describe() << r.output;
}

}  // namespace
}  // namespace labkit
