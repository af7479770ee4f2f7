#include "diagnostics_text.h"

#include <gtest/gtest.h>

#include <vector>

namespace labkit {
namespace {

TEST(DiagnosticsText, OutOfBoundsReadNamesKernelThreadAndDistance) {
  const auto d = nlohmann::json::parse(R"({"kind": "out_of_bounds", "access": "read",
      "buffer_bytes": 3364, "offset": 3368, "kernel": "_Z23matmul_tiled_any_kernelPKfS0_Pfiii",
      "block": [1, 1, 0], "thread": [3, 0, 0]})");
  EXPECT_EQ(DescribeEmuDiagnostic(d, "", nullptr),
            "an out-of-bounds read in matmul_tiled_any_kernel(float const*, float const*, float*, "
            "int, int, int), thread (3,0,0) of block (1,1,0): element 842 of a 3364-byte device "
            "buffer, whose elements are 0 to 840 (2 past the end). Usual cause: a load of A or B "
            "without a bounds check, e.g. a tile load in the last partial tile; guard the loads "
            "(store 0 instead), not only the store into C.");
}

// A race on shared memory names both threads and both accesses, in the order they came, and the
// barrier that belongs between them.
TEST(DiagnosticsText, SharedRaceNamesBothThreadsAndTheMissingBarrier) {
  const auto d = nlohmann::json::parse(R"({"kind": "shared_race",
      "kernel": "_Z23matmul_tiled_any_kernelPKfS0_Pfiii", "block": [2, 0, 0],
      "thread": [15, 0, 0], "access": "write", "other_thread": [0, 1, 0],
      "other_access": "read", "memory": "static", "offset": 64, "bytes": 1024})");
  EXPECT_EQ(
      DescribeEmuDiagnostic(d, "", nullptr)
          .rfind("a data race on shared memory in matmul_tiled_any_kernel(float const*, float "
                 "const*, float*, int, int, int): thread (0,1,0) read byte 64 of a 1024-byte "
                 "__shared__ array, and thread (15,0,0) of the same block (2,0,0) then wrote it, "
                 "with no __syncthreads() between them.",
                 0),
      0u)
      << DescribeEmuDiagnostic(d, "", nullptr);
  auto dynamic = d;
  dynamic["memory"] = "dynamic";
  dynamic["access"] = "read";
  dynamic["other_access"] = "write";
  EXPECT_NE(DescribeEmuDiagnostic(dynamic, "", nullptr)
                .find("thread (0,1,0) wrote byte 64 of the block's dynamic shared memory, and "
                      "thread (15,0,0) of the same block (2,0,0) then read it"),
            std::string::npos)
      << DescribeEmuDiagnostic(dynamic, "", nullptr);
  auto overwritten = d;
  overwritten["other_access"] = "write";
  EXPECT_NE(DescribeEmuDiagnostic(overwritten, "", nullptr)
                .find("thread (0,1,0) wrote byte 64 of a 1024-byte __shared__ array, and thread "
                      "(15,0,0) of the same block (2,0,0) then wrote another value there"),
            std::string::npos)
      << DescribeEmuDiagnostic(overwritten, "", nullptr);
}

TEST(DiagnosticsText, ASharedRecordFullNamesTheArrayAndTheLimit) {
  const auto d = nlohmann::json::parse(R"({"kind": "shared_record_full",
      "kernel": "_Z5tiledPKfS0_Pfiii", "block": [0, 0, 0], "arrays": 256, "bytes": 1024})");
  EXPECT_EQ(
      DescribeEmuDiagnostic(d, "", nullptr)
          .rfind("more __shared__ memory in one block of tiled(float const*, float const*, float*, "
                 "int, int, int) than a GPU's block can hold (array number 257, of 1024 bytes)",
                 0),
      0u)
      << DescribeEmuDiagnostic(d, "", nullptr);
}

// With the case's shape, a read names the matrix of that size, and the advice its own load.
TEST(DiagnosticsText, OutOfBoundsReadOfBNamesB) {
  const auto d = nlohmann::json::parse(R"({"kind": "out_of_bounds", "access": "read",
      "buffer_bytes": 1820, "offset": 1820, "kernel": "_Z1kPKfS0_Pfiii"})");
  const Shape shape{517, 5, 91};
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr, &shape);
  EXPECT_NE(text.find(": element 455 of B (5 x 91), whose elements are 0 to 454 (1 past the end)."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Usual cause: the load of B without a bounds check"), std::string::npos);
}

TEST(DiagnosticsText, OutOfBoundsPositionBeforeTheStartAndInBytes) {
  EXPECT_EQ(OutOfBoundsPosition(-8, 64, "A (4 x 4)"),
            "element -2 of A (4 x 4), whose elements are 0 to 15 (2 before the start)");
  EXPECT_EQ(OutOfBoundsPosition(66, 64, ""),
            "byte 66 of a 64-byte device buffer, whose bytes are 0 to 63 (3 past the end)");
}

// Before, a write past the end of C got the advice about unguarded loads of A or B, and the buffer
// was "a 6656-byte device buffer".
TEST(DiagnosticsText, OutOfBoundsWriteNamesCAndItsGuard) {
  const auto d = nlohmann::json::parse(R"({"kind": "out_of_bounds", "access": "write",
      "buffer_bytes": 6656, "offset": 6656, "kernel": "_Z1kPKfS0_Pfiii",
      "block": [0, 1, 0], "thread": [0, 0, 0]})");
  const Shape shape{13, 5, 128};
  EXPECT_EQ(DescribeEmuDiagnostic(d, "", nullptr, &shape),
            "an out-of-bounds write in k(float const*, float const*, float*, int, int, int), "
            "thread (0,0,0) of block (0,1,0): element 1664 of C (13 x 128), whose elements are 0 "
            "to 1663 (1 past the end). "
            "Usual cause: a store into C without a bounds check; guard it with "
            "if (row < m && col < k), and let every thread still reach the barriers.");
}

// Past the block's dynamic shared memory: the launch's size for it is the cause, not a guard on C
// (a false-failure hunt's wrong cause, 2026-11-28: "a 32-byte device buffer ... a store into C").
TEST(DiagnosticsText, OutOfBoundsInDynamicSharedMemoryNamesTheLaunchsSize) {
  const auto d = nlohmann::json::parse(R"({"kind": "out_of_bounds", "access": "write",
      "buffer_bytes": 32, "offset": 64, "buffer": "dynamic_shared", "kernel": "_Z1kPKfS0_Pfiii",
      "block": [0, 0, 0], "thread": [0, 0, 0]})");
  const Shape shape{1, 1, 8};  // C of 32 bytes too: the emulator's word decides, not the size
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr, &shape);
  EXPECT_NE(text.find("element 16 of the block's 32 bytes of dynamic shared memory"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("third <<<>>> argument"), std::string::npos) << text;
  EXPECT_EQ(text.find("store into C"), std::string::npos) << text;
}

// A store 64 MiB before C (seen on an H200, 2026-11-26): memcheck names the nearest allocation,
// A of a 1 x 1 x 1 case, which the store never meant. Before: "element -16776960 of A (1 x 1)".
TEST(DiagnosticsText, AnAccessFarFromEveryMatrixNamesNoElement) {
  const std::string log =
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at early_store(float *)+0x80 in matmul.cu:4\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Access to 0x7fef78800400 is out of bounds\n"
      "=========     and is 67,107,840 bytes before the nearest allocation at 0x7fef7c800000 of "
      "size 4 bytes\n"
      "========= ERROR SUMMARY: 1 error\n";
  const std::vector<NamedBuffer> buffers = {
      {"A", "A (1 x 1)", "case 1x1x1 (m x n x k)", 0x7fef7c800000, 4},
      {"C", "C (1 x 1)", "case 1x1x1 (m x n x k)", 0x7fef7c800400, 4}};
  const std::string text = SummariseSanitizerLog(log, "memcheck", buffers);
  EXPECT_EQ(text.substr(0, text.find('\n')).rfind(
                "an out-of-bounds write in early_store(float *), thread (0,0,0) of block (0,0,0) at "
                "matmul.cu:4: an address far outside A, B and C (67107840 bytes before the nearest "
                "allocation, A (1 x 1)), in case 1x1x1 (m x n x k)",
                0),
            0u)
      << text;
  EXPECT_EQ(text.find("element -"), std::string::npos) << text;
}

TEST(DiagnosticsText, MatricesOfSizeNamesEveryCandidate) {
  const Shape square{29, 29, 29};
  EXPECT_EQ(MatricesOfSize(29 * 29 * 4, square, false), "A (29 x 29) or B (29 x 29)");
  EXPECT_EQ(MatricesOfSize(29 * 29 * 4, square, true), "C (29 x 29)");
  const Shape tall{128, 13, 64};
  EXPECT_EQ(MatricesOfSize(128 * 13 * 4, tall, false), "A (128 x 13)");
  EXPECT_EQ(MatricesOfSize(13 * 64 * 4, tall, false), "B (13 x 64)");
  EXPECT_EQ(MatricesOfSize(128 * 64 * 4, tall, true), "C (128 x 64)");
  EXPECT_EQ(MatricesOfSize(12, tall, false), "");
  EXPECT_EQ(MatricesOfSize(128 * 64 * 4, tall, false), "C (128 x 64)");  // only C is that long
}

TEST(DiagnosticsText, DivergentBarrierSaysWhatToDo) {
  const auto d = nlohmann::json::parse(
      R"({"kind": "divergent_barrier", "kernel": "k", "block": [0, 0, 0], "detail": "x"})");
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr);
  EXPECT_NE(text.find("__syncthreads() reached by only some threads"), std::string::npos);
  EXPECT_NE(text.find("do not return early"), std::string::npos);
}

TEST(DiagnosticsText, AHostCallInAKernelNamesTheFunctionAndTheKernel) {
  const auto d = nlohmann::json::parse(
      R"({"kind": "host_call_in_kernel", "function": "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc",
          "kernel": "_Z19matmul_tiled_kernelPKfS0_Pfiii", "block": [1, 0, 0], "thread": [2, 3, 0]})");
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr);
  EXPECT_EQ(text.rfind("a call of std::__cxx11::basic_string<char, std::char_traits<char>, "
                       "std::allocator<char> >::_M_construct(unsigned long, char) in matmul_tiled_kernel(",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("thread (2,3,0) of block (1,0,0)"), std::string::npos) << text;
  EXPECT_NE(text.find("only host code may make"), std::string::npos) << text;
}

TEST(DiagnosticsText, AKernelTouchingTheEmulatorsMemorySaysWhatItReached) {
  const auto d = nlohmann::json::parse(
      R"({"kind": "emulator_memory", "access": "write", "address": "0x7f00a0", "bytes": 8,
          "kernel": "k", "block": [0, 1, 0], "thread": [3, 0, 0]})");
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr);
  EXPECT_EQ(text.rfind("a write of the CPU backend's own memory in k, thread (3,0,0) of block "
                       "(0,1,0) (address 0x7f00a0",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("illegal address"), std::string::npos) << text;
}

TEST(DiagnosticsText, ACountedLaunchWithUncountedBlocksSaysHowMany) {
  const auto d = nlohmann::json::parse(
      R"({"kind": "counting_incomplete", "kernel": "k", "counted_blocks": 1, "blocks": 110})");
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr);
  EXPECT_EQ(text.rfind("a counted launch of k ran 109 of its 110 blocks uncounted", 0), 0u) << text;
}

TEST(DiagnosticsText, SanitizerLogWithErrorsIsSummarised) {
  const std::string log =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at matmul_tiled_any_kernel(const float *, const float *, float *, int, int, "
      "int)+0x1d0 in /s/matmul.cu:88\n"
      "=========     by thread (3,0,0) in block (1,1,0)\n"
      "=========     Address 0x7f0000000d24 is out of bounds\n"
      "========= ERROR SUMMARY: 1 error\n";
  const std::string text = SummariseSanitizerLog(log, "memcheck");
  // No buffers of the harness's to place the address among: the access, without a matrix.
  EXPECT_EQ(
      text.rfind("an out-of-bounds read in matmul_tiled_any_kernel(const float *, const float "
                 "*, float *, int, int, int), thread (3,0,0) of block (1,1,0) at "
                 "/s/matmul.cu:88. compute-sanitizer memcheck found 1 error(s):\n",
                 0),
      0u)
      << text;
  EXPECT_NE(text.find("a load of A or B"), std::string::npos);
  EXPECT_EQ(text.find("a store into C without"), std::string::npos);
  EXPECT_NE(text.find("/s/matmul.cu:88"), std::string::npos);
  EXPECT_NE(text.find("by thread (3,0,0) in block (1,1,0)"), std::string::npos);
}

TEST(DiagnosticsText, CleanSanitizerLogIsEmpty) {
  EXPECT_EQ(SummariseSanitizerLog("========= ERROR SUMMARY: 0 errors\n", "memcheck"), "");
  EXPECT_EQ(SummariseSanitizerLog("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 "
                                  "warnings)\n",
                                  "racecheck"),
            "");
}

TEST(DiagnosticsText, ErrorLinesCountWithoutASummary) {
  const std::string log =
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at k()+0x10 in /s/matmul.cu:9\n";
  const std::string text = SummariseSanitizerLog(log, "memcheck");
  EXPECT_EQ(text.rfind("an invalid write in k() at /s/matmul.cu:9. compute-sanitizer "
                       "memcheck found at least 1 error(s):\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("a store into C without a bounds check"), std::string::npos);
}

TEST(DiagnosticsText, InvalidAddressIsExplained) {
  const auto d = nlohmann::json::parse(
      R"({"kind": "invalid_address", "access": "write", "kernel": "_Z9far_storePf"})");
  const std::string text = DescribeEmuDiagnostic(d, "", nullptr);
  EXPECT_EQ(
      text.rfind("a write of an address that is not in any device buffer in far_store(float*)", 0),
      0u)
      << text;
}

TEST(DiagnosticsText, RacecheckHazardIsAnError) {
  const std::string log =
      "========= Error: Race reported between Write access at matmul.cu:52 in k\n"
      "=========     and Read access at matmul.cu:55 in k [1024 hazards]\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
  const std::string text = SummariseSanitizerLog(log, "racecheck");
  EXPECT_EQ(text.rfind("a race in shared memory", 0), 0u) << text;
  EXPECT_NE(text.find("found 1 hazard(s)"), std::string::npos);
  EXPECT_NE(text.find("matmul.cu:52"), std::string::npos);
  EXPECT_NE(text.find("__syncthreads()"), std::string::npos);
}

TEST(DiagnosticsText, DeathByTheMemoryLimit) {
  ProcessResult p;
  p.started = true;
  p.signal = 9;
  p.memory_stop = ProcessResult::MemoryStop::kKernel;
  p.memory_limit_bytes = 8192LL << 20;
  EXPECT_EQ(DescribeDeath(p),
            "it used more than the memory limit of 8192 MiB and was stopped by the kernel: it "
            "allocated far more host memory than a matrix product needs (a leak in a loop?)");
  p.memory_stop = ProcessResult::MemoryStop::kLabgrade;
  EXPECT_EQ(DescribeDeath(p).rfind(
                "it used more than the memory limit of 8192 MiB and was stopped by labgrade: ", 0),
            0u);
}

// The program writes its output too: the sandbox's line printed by the student's code is not
// believed, the death is told as it happened.
TEST(DiagnosticsText, AForgedMemoryLimitLineIsNotBelieved) {
  ProcessResult p;
  p.started = true;
  p.signal = 11;
  p.output =
      "x\n[labgrade: the program used more than the memory limit of 8192 MiB and was "
      "stopped by the kernel]\n";
  EXPECT_EQ(DescribeDeath(p).find("memory limit"), std::string::npos) << DescribeDeath(p);
  EXPECT_EQ(DescribeDeath(p).rfind("it crashed (", 0), 0u) << DescribeDeath(p);
}

TEST(DiagnosticsText, DeathByTimeoutAndSignal) {
  ProcessResult p;
  p.started = true;
  p.timed_out = true;
  p.seconds = 60;
  EXPECT_EQ(DescribeDeath(p).rfind("it did not finish within 60 s", 0), 0u);
  p.timed_out = false;
  p.signal = 11;
  EXPECT_NE(DescribeDeath(p).find("signal 11"), std::string::npos);
}

}  // namespace
}  // namespace labkit
