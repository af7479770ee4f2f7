// The rule of threads per element of C, on launch records as the harness lists them: exactly
// enough passes, one thread fewer fails with the counts in its words, several launches add up.
#include "launch_coverage.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

LaunchInfo Launch(long long gx, long long gy, long long bx, long long by) {
  LaunchInfo l;
  l.kernel = "_Z4rowsPKfS0_Pfiii";
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = 1;
  l.block[0] = bx, l.block[1] = by, l.block[2] = 1;
  return l;
}

const std::string kWhere = "in case 17x5x9 (m x n x k)";

TEST(LaunchCoverage, ExactlyOneThreadPerElementPasses) {
  // 17 x 9 = 153 elements: one block of 17 x 9 threads.
  EXPECT_EQ(CheckThreadsPerElement(1, {Launch(1, 1, 9, 17)}, {17, 5, 9}, kWhere), "");
}

TEST(LaunchCoverage, AGridRoundedUpToWholeBlocksPasses) {
  // ceil(9 / 16) x ceil(17 / 16) blocks of 16 x 16: 512 threads for 153 elements.
  EXPECT_EQ(CheckThreadsPerElement(1, {Launch(1, 2, 16, 16)}, {17, 5, 9}, kWhere), "");
  EXPECT_EQ(CheckThreadsPerElement(1, {Launch(1, 1, 1, 1)}, {1, 300, 1}, kWhere), "");
}

TEST(LaunchCoverage, OneThreadFewerFailsWithExpectedAndGot) {
  EXPECT_EQ(CheckThreadsPerElement(1, {Launch(1, 1, 8, 19)}, {17, 5, 9}, kWhere),
            "your launch started 152 threads for the 17 x 9 = 153 elements of C in case 17x5x9 "
            "(m x n x k); this exercise computes one element of C per thread, so it starts at "
            "least 153 threads");
  EXPECT_EQ(CheckThreadsPerElement(1, {Launch(1, 1, 1, 1)}, {517, 300, 263}, "in case x"),
            "your launch started 1 thread for the 517 x 263 = 135971 elements of C in case x; "
            "this exercise computes one element of C per thread, so it starts at least 135971 "
            "threads");
}

TEST(LaunchCoverage, ThreadsAddUpOverEveryLaunchOfTheCase) {
  // Two launches of half the rows each, and one of them alone.
  const std::vector<LaunchInfo> halves = {Launch(1, 1, 9, 9), Launch(1, 1, 9, 8)};
  EXPECT_EQ(ThreadsStarted(halves), 153);
  EXPECT_EQ(CheckThreadsPerElement(1, halves, {17, 5, 9}, kWhere), "");
  EXPECT_EQ(CheckThreadsPerElement(1, {halves[0]}, {17, 5, 9}, kWhere)
                .rfind("your launch started 81 threads for the 17 x 9 = 153 elements", 0),
            0u);
  const std::string three = CheckThreadsPerElement(
      1, {Launch(1, 1, 1, 1), Launch(1, 1, 1, 1), Launch(1, 1, 1, 1)}, {17, 5, 9}, kWhere);
  EXPECT_EQ(three.rfind("your 3 launches started 3 threads for", 0), 0u) << three;
}

TEST(LaunchCoverage, NoLaunchStartsNoThread) {
  EXPECT_EQ(CheckThreadsPerElement(1, {}, {1, 1, 1}, "in case 1x1x1 (m x n x k)"),
            "your function launched no kernel in it, so it started 0 threads for the 1 x 1 = 1 "
            "elements of C in case 1x1x1 (m x n x k); this exercise computes one element of C "
            "per thread, so it starts at least 1 thread");
}

// A rule below one thread per element (register blocking: several elements per thread) asks for
// whole threads, rounded up.
TEST(LaunchCoverage, AFractionOfAThreadPerElementIsRoundedUp) {
  EXPECT_EQ(CheckThreadsPerElement(0.25, {Launch(1, 1, 3, 1)}, {3, 1, 3}, kWhere), "");
  EXPECT_EQ(CheckThreadsPerElement(0.25, {Launch(1, 1, 2, 1)}, {3, 1, 3}, kWhere),
            "your launch started 2 threads for the 3 x 3 = 9 elements of C in case 17x5x9 (m x n "
            "x k); this exercise starts at least 0.25 threads per element of C, here at least 3 "
            "threads");
}

// At the harness's cap on listed launches, the message says the count is of those it saw.
TEST(LaunchCoverage, AtTheCapOnListedLaunchesTheMessageSaysSo) {
  const std::vector<LaunchInfo> many(64, Launch(1, 1, 1, 1));
  EXPECT_EQ(CheckThreadsPerElement(1, many, {17, 5, 9}, kWhere)
                .rfind("your first 64 launches (the most the grader lists for one call) started "
                       "64 threads",
                       0),
            0u);
}

// Sides at CUDA's limits neither overflow nor wrap to a small count.
TEST(LaunchCoverage, TheLargestGridDoesNotOverflow) {
  LaunchInfo l = Launch(2147483647, 65535, 1024, 1);
  l.grid[2] = 65535;
  EXPECT_GT(ThreadsStarted({l}), 9.0e21);
}

}  // namespace
}  // namespace labkit
