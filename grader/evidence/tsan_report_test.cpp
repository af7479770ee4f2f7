#include "tsan_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace labkit {
namespace {

// Abridged from a real report: lab 03's tiled kernel without its first barrier, built with
// --tsan on the CPU backend (frames past #1 and the other report left out).
constexpr const char* kMissingFirstBarrier = R"(==================
WARNING: ThreadSanitizer: data race (pid=10334)
  Write of size 4 at 0x7f674431d904 by thread T2:
    #0 matmul_tiled_any_kernel(float const*, float const*, float*, int, int, int) /tmp/sub/matmul.cu:6 (harness_tsan+0x41a580)
    #1 run /work/main/emu/runtime/include/labkit_emu/launch.h:61 (harness_tsan+0x419e2c)

  Previous read of size 4 at 0x7f674431d904 by thread T1:
    #0 helper(float const*) /work/main/labs/03_tiled_matmul/helper.cuh:3 (harness_tsan+0x41a5ed)
    #1 matmul_tiled_any_kernel(float const*, float const*, float*, int, int, int) /tmp/sub/matmul.cu:8 (harness_tsan+0x41a5ed)

  Location is TLS of main thread.

  Thread T2 'CUDA thread (1,0,0) of block (0,0,0)' (tid=0, running) created by main thread at:
    #0 emu::detail::RaceAnnotations::begin_block(unsigned int, uint3, dim3) /work/main/emu/runtime/src/race_annotations.cpp:48 (harness_tsan+0x443632)

  Thread T1 'CUDA thread (0,0,0) of block (0,0,0)' (tid=0, running) created by main thread at:
    #0 emu::detail::RaceAnnotations::begin_block(unsigned int, uint3, dim3) /work/main/emu/runtime/src/race_annotations.cpp:48 (harness_tsan+0x443632)

SUMMARY: ThreadSanitizer: data race /tmp/sub/matmul.cu:6 in matmul_tiled_any_kernel(float const*, float const*, float*, int, int, int)
==================
)";

class TsanReportTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tsan_report_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A matmul.cu whose line 6 writes the tile and line 8 reads it; `barrier_at_7` puts a
  // __syncthreads() between them.
  void WriteSource(bool barrier_at_7) {
    std::ofstream(dir_ / "matmul.cu") << "// 1\n// 2\n// 3\n// 4\n  for (...) {\n"
                                      << "    tile_A[ty][tx] = A[row * n + a_col];\n"
                                      << (barrier_at_7 ? "    __syncthreads();\n" : "\n")
                                      << "    for (int i = 0; i < TILE; ++i) sum += tile_A[ty][i];\n"
                                      << "  }\n";
  }

  std::filesystem::path dir_;
};

TEST_F(TsanReportTest, ParsesBothAccessesAtTheStudentsLines) {
  const auto races = ParseThreadSanitizerLog(kMissingFirstBarrier, {"matmul.cu"});
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].current.operation, "write");
  EXPECT_EQ(races[0].current.bytes, 4);
  EXPECT_EQ(races[0].current.line, 6);
  EXPECT_EQ(races[0].current.thread, "CUDA thread (1,0,0) of block (0,0,0)");
  EXPECT_EQ(races[0].previous.operation, "read");
  // The innermost frame is in a kit header; the student's own line is the one to show.
  EXPECT_EQ(races[0].previous.file, "/tmp/sub/matmul.cu");
  EXPECT_EQ(races[0].previous.line, 8);
  EXPECT_EQ(races[0].previous.thread, "CUDA thread (0,0,0) of block (0,0,0)");
}

TEST_F(TsanReportTest, FallsBackToTheInnermostFrameOutsideStudentFiles) {
  const auto races = ParseThreadSanitizerLog(kMissingFirstBarrier, {"other.cu"});
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous.line, 3);
  EXPECT_NE(races[0].previous.file.find("helper.cuh"), std::string::npos);
}

TEST_F(TsanReportTest, IgnoresOtherOutputAndCountsEveryReport) {
  const std::string log = std::string("unrelated line\n") + kMissingFirstBarrier +
                          "WARNING: ThreadSanitizer: thread leak\nSUMMARY: ThreadSanitizer: x\n" +
                          kMissingFirstBarrier;
  EXPECT_EQ(ParseThreadSanitizerLog(log, {"matmul.cu"}).size(), 2u);
  EXPECT_TRUE(ParseThreadSanitizerLog("nothing to see\n", {"matmul.cu"}).empty());
}

TEST_F(TsanReportTest, NoBarrierBetweenTheLinesSaysWhereToPutOne) {
  WriteSource(/*barrier_at_7=*/false);
  const std::string text =
      DescribeDataRaces(ParseThreadSanitizerLog(kMissingFirstBarrier, {"matmul.cu"}), dir_);
  EXPECT_NE(text.find("ThreadSanitizer found 1 data race"), std::string::npos) << text;
  EXPECT_NE(text.find("line 6 of matmul.cu (write, CUDA thread (1,0,0) of block (0,0,0))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tile_A[ty][tx] = A[row * n + a_col];"), std::string::npos) << text;
  EXPECT_NE(text.find("line 8 of matmul.cu (read"), std::string::npos) << text;
  EXPECT_NE(text.find("No __syncthreads() separates these lines"), std::string::npos) << text;
}

TEST_F(TsanReportTest, ABarrierBetweenTheLinesMeansTheRaceGoesAroundTheLoop) {
  WriteSource(/*barrier_at_7=*/true);
  const std::string text =
      DescribeDataRaces(ParseThreadSanitizerLog(kMissingFirstBarrier, {"matmul.cu"}), dir_);
  EXPECT_NE(text.find("goes around the loop"), std::string::npos) << text;
  EXPECT_NE(text.find("after line 8"), std::string::npos) << text;
}

TEST_F(TsanReportTest, RepeatedPairsAreShownOnce) {
  WriteSource(false);
  const std::string log = std::string(kMissingFirstBarrier) + kMissingFirstBarrier;
  const std::string text = DescribeDataRaces(ParseThreadSanitizerLog(log, {"matmul.cu"}), dir_);
  EXPECT_NE(text.find("found 1 data race"), std::string::npos) << text;
  EXPECT_EQ(DescribeDataRaces({}, dir_), "");
}

}  // namespace
}  // namespace labkit
