#include "memcheck_log.h"

#include <gtest/gtest.h>

#include "diagnostics_text.h"

namespace labkit {
namespace {

// compute-sanitizer 2022 and later: the kernel and its line on one "at" line, the address as
// "Access to", the nearest allocation with its size, digits grouped by commas.
const char* kRecentLog =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at matmulTiledKernel(const float *, const float *, float *, int, int, "
    "int)+0x2f0 in /work/sub/matmul.cu:47\n"
    "=========     by thread (12,15,0) in block (1,0,0)\n"
    "=========     Access to 0x7f3a1c001a2c is out of bounds\n"
    "=========     and is 3,405 bytes after the nearest allocation at 0x7f3a1c000c00 of size "
    "224 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: [0x2ea231] in /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at matmulTiledKernel(const float *, const float *, float *, int, int, "
    "int)+0x2f0 in /work/sub/matmul.cu:47\n"
    "=========     by thread (13,15,0) in block (1,0,0)\n"
    "=========     Access to 0x7f3a1c001a30 is out of bounds\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch "
    "failure\" on CUDA API call to cudaDeviceSynchronize.\n"
    "========= ERROR SUMMARY: 3 errors\n";

// cuda-memcheck and the first compute-sanitizers: "at 0x.. in file:line:kernel", "Address",
// sizes without "bytes", no nearest allocation.
const char* kOldLog =
    "========= CUDA-MEMCHECK\n"
    "========= Invalid __global__ write of size 4\n"
    "=========     at 0x000000c8 in /home/s/matmul.cu:75:matmulKernel(float const *, float "
    "const *, float*, int, int, int)\n"
    "=========     by thread (9,0,0) in block (0,2,0)\n"
    "=========     Address 0x7f0000002400 is out of bounds\n"
    "========= ERROR SUMMARY: 1 error\n";

// The kernel on one line and its source on the next, as some versions print it.
const char* kSplitLocationLog =
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at storeKernel(float *, int)+0x70\n"
    "=========        in /s/matmul.cu:53\n"
    "=========     by thread (232,0,0) in block (3,0,0)\n"
    "=========     Address 0x7c5838a00fa0 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7c5838a00000 of size "
    "4,000 bytes\n"
    "========= ERROR SUMMARY: 1 error\n";

TEST(MemcheckLog, ReadsTheFirstAccessOfARecentLog) {
  const auto access = FirstInvalidAccess(kRecentLog);
  ASSERT_TRUE(access.has_value());
  EXPECT_EQ(access->operation, "read");
  EXPECT_EQ(access->space, "__global__");
  EXPECT_EQ(access->bytes, 4);
  EXPECT_EQ(access->kernel,
            "matmulTiledKernel(const float *, const float *, float *, int, int, int)");
  EXPECT_EQ(access->source, "/work/sub/matmul.cu:47");
  EXPECT_EQ(access->thread, "(12,15,0)");
  EXPECT_EQ(access->block, "(1,0,0)");
  EXPECT_TRUE(access->out_of_bounds);
  ASSERT_TRUE(access->address.has_value());
  EXPECT_EQ(*access->address, 0x7f3a1c001a2cULL);  // the first error's, not the second's
  ASSERT_TRUE(access->nearest.has_value());
  EXPECT_EQ(access->nearest->base, 0x7f3a1c000c00ULL);
  EXPECT_EQ(access->nearest->bytes, 224);
}

TEST(MemcheckLog, ReadsAnOldLog) {
  const auto access = FirstInvalidAccess(kOldLog);
  ASSERT_TRUE(access.has_value());
  EXPECT_EQ(access->operation, "write");
  EXPECT_EQ(access->source, "/home/s/matmul.cu:75");
  EXPECT_EQ(access->kernel, "matmulKernel(float const *, float const *, float*, int, int, int)");
  ASSERT_TRUE(access->address.has_value());
  EXPECT_EQ(*access->address, 0x7f0000002400ULL);
  EXPECT_FALSE(access->nearest.has_value());
}

TEST(MemcheckLog, ReadsALocationSplitOverTwoLines) {
  const auto access = FirstInvalidAccess(kSplitLocationLog);
  ASSERT_TRUE(access.has_value());
  EXPECT_EQ(access->kernel, "storeKernel(float *, int)");
  EXPECT_EQ(access->source, "/s/matmul.cu:53");
  ASSERT_TRUE(access->nearest.has_value());
  EXPECT_EQ(access->nearest->bytes, 4000);
}

TEST(MemcheckLog, NoAccessInACleanLogOrInAnApiErrorAlone) {
  EXPECT_FALSE(FirstInvalidAccess("========= ERROR SUMMARY: 0 errors\n").has_value());
  EXPECT_FALSE(FirstInvalidAccess("========= Program hit cudaErrorInvalidValue (error 1) due to "
                                  "\"invalid argument\" on CUDA API call to cudaMemcpy.\n"
                                  "========= ERROR SUMMARY: 1 error\n")
                   .has_value());
}

TEST(MemcheckLog, MisalignedIsNotOutOfBounds) {
  const auto access = FirstInvalidAccess(
      "========= Invalid __global__ read of size 16 bytes\n"
      "=========     at k(const float *)+0x40 in /s/m.cu:3\n"
      "=========     by thread (1,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f0000000404 is misaligned\n");
  ASSERT_TRUE(access.has_value());
  EXPECT_FALSE(access->out_of_bounds);
}

// 29x7x8: A 812 bytes, B 224 bytes, C 928 bytes; B at 0x7f3a1c000c00, as in kRecentLog.
std::vector<NamedBuffer> Buffers() {
  return {{"A", "A (29 x 7)", "case 29x7x8 (m x n x k)", 0x7f3a1c000800, 812},
          {"B", "B (7 x 8)", "case 29x7x8 (m x n x k)", 0x7f3a1c000c00, 224},
          {"C", "C (29 x 8)", "case 29x7x8 (m x n x k)", 0x7f3a1c000e00, 928}};
}

TEST(MemcheckLog, TheNearestAllocationNamesTheBuffer) {
  const std::vector<NamedBuffer> buffers = Buffers();
  const auto at = LocateAccess(*FirstInvalidAccess(kRecentLog), buffers);
  ASSERT_TRUE(at.has_value());
  ASSERT_NE(at->buffer, nullptr);
  EXPECT_EQ(at->buffer->matrix, "B");
  EXPECT_EQ(at->offset, 0x1a2c - 0xc00);  // 3628: element 907 of 56
  EXPECT_EQ(at->bytes, 224);
}

// An allocation the harness did not make (one the student's code asked for) is none of A, B, C,
// though the address lies closer to one of them.
TEST(MemcheckLog, AnAllocationOfTheStudentsIsNotNamedAfterAMatrix) {
  const std::vector<NamedBuffer> buffers = Buffers();
  const auto at = LocateAccess(*FirstInvalidAccess(kSplitLocationLog), buffers);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->buffer, nullptr);
  EXPECT_EQ(at->offset, 4000);
  EXPECT_EQ(at->bytes, 4000);
}

TEST(MemcheckLog, WithoutTheNearestAllocationTheClosestMatrixIsTaken) {
  std::vector<NamedBuffer> buffers = Buffers();
  buffers.push_back({"C", "C (9 x 9)", "", 0x7f0000002000, 1000});
  const auto at = LocateAccess(*FirstInvalidAccess(kOldLog), buffers);  // at 0x7f0000002400
  ASSERT_TRUE(at.has_value());
  ASSERT_NE(at->buffer, nullptr);
  EXPECT_EQ(at->buffer->name, "C (9 x 9)");
  EXPECT_EQ(at->offset, 1024);
  EXPECT_FALSE(LocateAccess(*FirstInvalidAccess(kOldLog), {}).has_value());
}

// Two cases' buffers at one address (the allocator hands it out again): the first listed wins,
// which is the case the judge puts first (HarnessBuffers).
TEST(MemcheckLog, TheFirstListedOfTwoEqualAllocationsWins) {
  std::vector<NamedBuffer> buffers = {
      {"B", "B (7 x 8)", "case 29x7x8 (m x n x k)", 0x7f3a1c000c00, 224},
      {"A", "A (8 x 7)", "case 8x7x8 (m x n x k)", 0x7f3a1c000c00, 224}};
  EXPECT_EQ(LocateAccess(*FirstInvalidAccess(kRecentLog), buffers)->buffer->name, "B (7 x 8)");
  std::swap(buffers[0], buffers[1]);
  EXPECT_EQ(LocateAccess(*FirstInvalidAccess(kRecentLog), buffers)->buffer->name, "A (8 x 7)");
}

// The message: before, "reads outside device memory (compute-sanitizer memcheck found 3
// error(s)):"; now the first line says what, where, which matrix and element, expected range.
TEST(MemcheckLog, TheMessageNamesTheMatrix) {
  const std::string text = SummariseSanitizerLog(kRecentLog, "memcheck", Buffers());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "an out-of-bounds read in matmulTiledKernel(const float *, const float *, float *, "
            "int, int, int), thread (12,15,0) of block (1,0,0) at /work/sub/matmul.cu:47: element "
            "907 of B (7 x 8), whose elements are 0 to 55 (852 past the end), in case 29x7x8 (m x "
            "n x k). compute-sanitizer memcheck found 3 error(s):")
      << text;
  EXPECT_NE(text.find("Usual cause: the load of B without a bounds check"), std::string::npos);
  EXPECT_NE(text.find("Access to 0x7f3a1c001a2c is out of bounds"), std::string::npos);
}

TEST(MemcheckLog, TheMessageSaysWhenTheBufferIsNoneOfTheMatrices) {
  const std::string text = SummariseSanitizerLog(kSplitLocationLog, "memcheck", Buffers());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "an out-of-bounds write in storeKernel(float *, int), thread (232,0,0) of block "
            "(3,0,0) at /s/matmul.cu:53: element 1000 of a 4000-byte device buffer that is not "
            "A, B or C, whose elements are 0 to 999 (1 past the end). compute-sanitizer memcheck "
            "found 1 error(s):")
      << text;
}

TEST(MemcheckLog, AWriteIntoAnInputIsAWrongPointer) {
  std::vector<NamedBuffer> buffers = Buffers();
  const std::string log =
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at k(float *)+0x10 in /s/m.cu:9\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f3a1c000b2c is out of bounds\n"
      "=========     and is 1 bytes after the nearest allocation at 0x7f3a1c000800 of size 812 "
      "bytes\n";
  const std::string text = SummariseSanitizerLog(log, "memcheck", buffers);
  EXPECT_NE(text.find("element 203 of A (29 x 7), whose elements are 0 to 202 (1 past the end)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Usual cause: a store through the wrong pointer"), std::string::npos);
}

TEST(MemcheckLog, ASharedMemoryAccessIsNotAMatrixOfTheHarness) {
  const std::string text = SummariseSanitizerLog(
      "========= Invalid __shared__ read of size 4 bytes\n"
      "=========     at k()+0x10 in /s/m.cu:12\n"
      "=========     by thread (16,0,0) in block (0,0,0)\n"
      "=========     Address 0x400 is out of bounds\n"
      "========= ERROR SUMMARY: 1 error\n",
      "memcheck", Buffers());
  EXPECT_EQ(text.rfind("an out-of-bounds read of __shared__ memory in k(), thread (16,0,0) of "
                       "block (0,0,0) at /s/m.cu:12. ",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("Usual cause: an index into a __shared__ array"), std::string::npos);
}

}  // namespace
}  // namespace labkit
