#include "process_memory.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace labkit {
namespace {

TEST(ProcessMemory, ResidentBytesComeFromTheSecondFieldOfStatm) {
  EXPECT_EQ(ResidentBytesFromStatm("262144 1024 300 10 0 2000 0\n", 4096), 1024LL * 4096);
  EXPECT_EQ(ResidentBytesFromStatm("", 4096), -1);  // the process ended: nothing to read
  EXPECT_EQ(ResidentBytesFromStatm("12", 4096), -1);
}

TEST(ProcessMemory, ProportionalBytesComeFromThePssLineOfSmapsRollup) {
  const std::string rollup =
      "55d0c0a4b000-7ffc2b1f4000 ---p 00000000 00:00 0                          [rollup]\n"
      "Rss:               10240 kB\n"
      "Pss:                2561 kB\n"
      "Pss_Anon:           1200 kB\n";
  EXPECT_EQ(ProportionalBytesFromSmapsRollup(rollup), 2561LL * 1024);
  EXPECT_EQ(ProportionalBytesFromSmapsRollup(""), -1);  // no such file (old kernel, or ended)
  EXPECT_EQ(ProportionalBytesFromSmapsRollup("Pss: many kB\n"), -1);
}

// A fork bomb's children share their parent's pages: counted once between them, not once each,
// they must not look like a memory hog.
TEST(ProcessMemory, ForkedChildrenSharingPagesCountThemOnce) {
  constexpr std::size_t kBytes = std::size_t(64) << 20;
  constexpr int kChildren = 8;
  char* p = static_cast<char*>(std::malloc(kBytes));
  std::memset(p, 1, kBytes);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    for (int i = 0; i < kChildren; ++i)
      if (fork() == 0) {
        (void)!write(ready[1], "x", 1);
        pause();
      }
    (void)!write(ready[1], "x", 1);
    pause();
  }
  char byte = 0;
  for (int i = 0; i <= kChildren; ++i) ASSERT_EQ(read(ready[0], &byte, 1), 1);
  const TreeMemory memory = MeasureProcessTree(child);
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  std::free(p);
  EXPECT_EQ(memory.pids.size(), std::size_t(kChildren) + 1);
  if (ProportionalBytesFromSmapsRollup(
          [] {
            std::ifstream in("/proc/self/smaps_rollup");
            return std::string((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
          }()) < 0)
    GTEST_SKIP() << "no /proc/PID/smaps_rollup (kernel before 4.14): shared pages count per process";
  // 9 processes share 64 MiB: about 64 MiB in all (plus their own small pages), far below 9 x 64.
  EXPECT_LT(memory.resident_bytes, 2 * static_cast<long long>(kBytes));
}

TEST(ProcessMemory, ParentIsReadAfterTheLastParenthesis) {
  EXPECT_EQ(ParentFromStat("42 (bash) S 7 42 42 0 -1 4194560"), 7);
  // A program may name itself with spaces and ')' to shift naive field counting.
  EXPECT_EQ(ParentFromStat("43 (a) S 1 (b) R 99 43 43 0"), 99);
  EXPECT_EQ(ParentFromStat("garbage"), -1);
}

TEST(ProcessMemory, TreeIsTheRootAndAllItsDescendantsOnly) {
  // 10 -> 11 -> 12, 10 -> 13; 20 -> 21 is another command's.
  const std::map<pid_t, pid_t> parent_of = {{10, 1}, {11, 10}, {12, 11}, {13, 10},
                                            {20, 1}, {21, 20}, {1, 0}};
  std::vector<pid_t> tree = ProcessTree(10, parent_of);
  ASSERT_FALSE(tree.empty());
  EXPECT_EQ(tree.front(), 10);
  std::sort(tree.begin(), tree.end());
  EXPECT_EQ(tree, (std::vector<pid_t>{10, 11, 12, 13}));
}

TEST(ProcessMemory, ALoopFromAReusedPidEnds) {
  EXPECT_EQ(ProcessTree(5, {{5, 6}, {6, 5}}), (std::vector<pid_t>{5, 6}));
}

TEST(ProcessMemory, MeasuresWhatAGrandchildTouches) {
  ASSERT_TRUE(CanMeasureResidentMemory());
  constexpr std::size_t kBytes = std::size_t(48) << 20;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    if (fork() == 0) {  // the grandchild holds the memory, as a harness under a shell would
      char* p = static_cast<char*>(std::malloc(kBytes));
      std::memset(p, 1, kBytes);
      (void)!write(ready[1], "x", 1);
      pause();
    }
    pause();
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  const TreeMemory memory = MeasureProcessTree(child);
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  EXPECT_GE(memory.resident_bytes, static_cast<long long>(kBytes));
  EXPECT_EQ(memory.pids.size(), 2u);
  EXPECT_EQ(memory.pids.front(), child);
}

}  // namespace
}  // namespace labkit
