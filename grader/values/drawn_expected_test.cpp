// The expected values labgrade works out itself for drawn query cases: lab 04's occupancy formula
// on multiprocessors whose answers are known (an H100's, from lab.yaml's published cases, and a
// drawn one worked by hand), its suggested block side for a student's kernel, lab 01's widest
// square block, and the errors of an incomplete lab.yaml or of a kernel whose resources are
// unknown.
#include "drawn_expected.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

QueryDrawn OccupancyDrawn() {
  QueryDrawn d;
  d.expected_by = DrawnExpected::kOccupancyFormula;
  d.known = {{"registers_of_kernel_2", 37}, {"registers_of_kernel_3", 24}};
  return d;
}

// An H100's multiprocessor: 64 warp slots, 32 blocks, 64 Ki registers, 228 KiB, 1 KiB reserved.
ParamSet OnAnH100(int64_t kernel, int64_t threads, int64_t dynamic_smem) {
  return {{"kernel", kernel},    {"threads", threads},  {"dynamic_smem", dynamic_smem},
          {"sm_warps", 64},      {"sm_blocks", 32},     {"sm_registers", 65536},
          {"sm_shared", 233472}, {"sm_reserved", 1024}, {"sm_warp_size", 32}};
}

double Expected(const QueryDrawn& d, const ParamSet& p, const std::string& name) {
  const Result<DrawnValues> r = DrawnExpectedValues(d, p);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() && r->expected.count(name) ? r->expected.at(name) : -1;
}

// lab.yaml's published cases for the kit's kernels, whose answers on an H100 its comments give
// (and the occupancy API gives there): each limit decides one of them.
TEST(DrawnExpectedTest, TheOccupancyFormulaGivesTheApisAnswersOnAnH100) {
  const QueryDrawn d = OccupancyDrawn();
  EXPECT_EQ(Expected(d, OnAnH100(2, 64, 0), "active_blocks"), 24);     // registers, sub-partitions
  EXPECT_EQ(Expected(d, OnAnH100(2, 32, 7300), "active_blocks"), 27);  // 8324 bytes become 8448
  EXPECT_EQ(Expected(d, OnAnH100(3, 256, 0), "active_blocks"), 8);     // warp slots
  EXPECT_EQ(Expected(d, OnAnH100(3, 80, 0), "active_blocks"), 21);     // 3 whole warps a block
  EXPECT_DOUBLE_EQ(Expected(d, OnAnH100(2, 64, 0), "occupancy"), 0.75);  // 48 of 64 warps
  EXPECT_DOUBLE_EQ(Expected(d, OnAnH100(3, 80, 0), "occupancy"), 63.0 / 64);
}

// A drawn multiprocessor, worked by hand: 48 warp slots, 16 blocks, 32 Ki registers, 104 KiB.
// Kernel 2 (37 registers, 1280 a warp) with 187 threads (6 warps) and 19083 bytes: warps 48 / 6 =
// 8; registers 8192 / 1280 = 6 per sub-partition, 24 warps, 4 blocks; shared 19083 + 1024 rounded
// up to 20224, 106496 / 20224 = 5. Four blocks: 24 of 48 warps.
TEST(DrawnExpectedTest, TheOccupancyFormulaReadsEveryLimitOfTheDrawnMultiprocessor) {
  const QueryDrawn d = OccupancyDrawn();
  const ParamSet p = {{"kernel", 2},         {"threads", 187},      {"dynamic_smem", 19083},
                      {"sm_warps", 48},      {"sm_blocks", 16},     {"sm_registers", 32768},
                      {"sm_shared", 106496}, {"sm_reserved", 1024}, {"sm_warp_size", 32}};
  EXPECT_EQ(Expected(d, p, "active_blocks"), 4);
  EXPECT_DOUBLE_EQ(Expected(d, p, "occupancy"), 0.5);
  ParamSet fewer_blocks = p;
  fewer_blocks["sm_blocks"] = 3;
  EXPECT_EQ(Expected(d, fewer_blocks, "active_blocks"), 3);
  ParamSet less_shared = p;
  less_shared["sm_shared"] = 61440;  // 3 blocks of 20224
  EXPECT_EQ(Expected(d, less_shared, "active_blocks"), 3);
}

// The slips' answers come with the expected values (the harness no longer words them for drawn
// cases). In the drawn case above the registers bind, so the shared-memory limit left out still
// gives 4; an occupancy counted in threads gives 4 x 187 / 1536.
TEST(DrawnExpectedTest, TheFormulasSlipsComeWithTheirAnswers) {
  const ParamSet p = {{"kernel", 2},         {"threads", 187},      {"dynamic_smem", 19083},
                      {"sm_warps", 48},      {"sm_blocks", 16},     {"sm_registers", 32768},
                      {"sm_shared", 106496}, {"sm_reserved", 1024}, {"sm_warp_size", 32}};
  const Result<DrawnValues> r = DrawnExpectedValues(OccupancyDrawn(), p);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_FALSE(r->hints.empty());
  EXPECT_EQ(r->hints.front().value_name, "active_blocks");
  EXPECT_EQ(r->hints.front().value, 4);
  EXPECT_NE(r->hints.front().cause.find("20224 bytes"), std::string::npos)
      << r->hints.front().cause;
  bool register_unit = false;  // 37 x 32 = 1184 taken as is: 8192 / 1184 = 6 still, 4 blocks
  for (const DrawnHint& h : r->hints)
    register_unit |= h.cause.find("units of 256: 37 x 32 = 1184 becomes 1280") != std::string::npos;
  EXPECT_TRUE(register_unit);
  EXPECT_EQ(r->hints.back().value_name, "occupancy");
  EXPECT_DOUBLE_EQ(r->hints.back().value, 4.0 * 187 / 1536);
}

TEST(DrawnExpectedTest, AKernelWhoseRegistersLabYamlDoesNotKnowIsAnError) {
  const Result<DrawnValues> r = DrawnExpectedValues(OccupancyDrawn(), OnAnH100(1, 64, 0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "the occupancy formula needs registers_of_kernel_1 (in drawn.known)");
  ParamSet no_reserve = OnAnH100(2, 64, 0);
  no_reserve.erase("sm_reserved");
  const Result<DrawnValues> r2 = DrawnExpectedValues(OccupancyDrawn(), no_reserve);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error(), "the occupancy formula needs sm_reserved (in the case)");
}

TEST(DrawnExpectedTest, TheWidestSquareBlockIsTheLargestSideWhoseSquareFits) {
  QueryDrawn d;
  d.expected_by = DrawnExpected::kLargestSquareBlock;
  EXPECT_EQ(Expected(d, {{"max_threads_per_block", 256}}, "width"), 16);
  EXPECT_EQ(Expected(d, {{"max_threads_per_block", 512}}, "width"), 22);
  EXPECT_EQ(Expected(d, {{"max_threads_per_block", 768}}, "width"), 27);
  EXPECT_FALSE(DrawnExpectedValues(d, {}).ok());
}

QueryDrawn BlockSideDrawn() {
  QueryDrawn d;
  d.expected_by = DrawnExpected::kSuggestedBlockSide;
  d.kernel = "matmul_dynamic_kernel";
  d.known = {{"shared_bytes_per_thread", 8}};
  return d;
}

StudentKernel KernelOf(long long registers, long long max_threads = 1024) {
  StudentKernel k;
  k.known = true;
  k.registers = registers;
  k.max_threads = max_threads;
  return k;
}

double Side(const ParamSet& p, const StudentKernel& k) {
  const Result<DrawnValues> r = DrawnExpectedValues(BlockSideDrawn(), p, k);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? r->expected.at("block_side") : -1;
}

// On an H100 a kernel of 32 registers with two floats a thread fills the SM with two blocks of
// 1024: the suggestion is 1024, a side of 32.
TEST(DrawnExpectedTest, TheSuggestedSideOnAnH100IsThatOfTheLargestBlock) {
  ParamSet p = OnAnH100(0, 0, 0);
  p["max_threads"] = 1024;
  EXPECT_EQ(Side(p, KernelOf(32)), 32);
  p["max_threads"] = 200;  // 192 threads (6 warps) fill it: 64 is the power of 4 below
  EXPECT_EQ(Side(p, KernelOf(32)), 8);
}

// A drawn multiprocessor, worked by hand: 48 warp slots, 16 blocks, 32 Ki registers, 104 KiB; a
// kernel of 40 registers (1280 a warp) holds 8192 / 1280 = 6 warps per sub-partition, 24 in all.
// No block size holds more than 768 threads: 1024 to 800 hold none, 768 one block, and smaller
// ones no more, so the first, 768, is suggested, and 256 is the power of 4 below it (a side of
// 16). Within 200 threads, 200 holds 3 blocks (600) and 192 holds 4 (768): a side of 8. A kernel
// bounded to 128 threads a block: 128 holds six (768), a side of 8.
TEST(DrawnExpectedTest, TheSuggestedSideReadsTheDrawnMultiprocessorAndTheStudentsKernel) {
  ParamSet p = {{"max_threads", 1024},   {"sm_warps", 48},      {"sm_blocks", 16},
                {"sm_registers", 32768}, {"sm_shared", 106496}, {"sm_reserved", 1024},
                {"sm_warp_size", 32}};
  EXPECT_EQ(Side(p, KernelOf(40)), 16);
  EXPECT_EQ(Side(p, KernelOf(40, 128)), 8);
  p["max_threads"] = 200;
  EXPECT_EQ(Side(p, KernelOf(40)), 8);
  p["max_threads"] = 1024;
  p["sm_registers"] = 65536;  // 48 warps of 40 registers: two blocks of 768, the SM full
  EXPECT_EQ(Side(p, KernelOf(40)), 16);
  // The slips' answers for the 768 suggested: its square root's floor (27), and 768 itself.
  p["sm_registers"] = 32768;
  const Result<DrawnValues> r = DrawnExpectedValues(BlockSideDrawn(), p, KernelOf(40));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->hints.size(), 2u);
  EXPECT_EQ(r->hints[0].value, 27);
  EXPECT_EQ(r->hints[1].value, 768);
  EXPECT_NE(r->hints[0].cause.find("suggested 768 threads"), std::string::npos);
}

// A kernel with 47 KiB of static shared memory may ask for at most 1 KiB more per launch: 128
// threads (two floats each) is the largest block the API holds (r31, a correct side failed).
TEST(DrawnExpectedTest, TheSuggestedSideHoldsTheLaunchsSharedMemoryLimit) {
  ParamSet p = OnAnH100(0, 0, 0);
  p["max_threads"] = 1024;
  StudentKernel k = KernelOf(32);
  k.static_shared = 47 * 1024;
  EXPECT_EQ(Side(p, k), 8);     // 128 threads: 64 is the power of 4 below
  k.static_shared = 40 * 1024;  // 8 KiB left: 1024 threads still fit
  EXPECT_EQ(Side(p, k), 32);
}

TEST(DrawnExpectedTest, AStudentKernelWithUnknownResourcesIsAnError) {
  ParamSet p = OnAnH100(0, 0, 0);
  p["max_threads"] = 1024;
  StudentKernel unknown;
  unknown.unknown_why = "the build reports no kernel named matmul_dynamic_kernel";
  const Result<DrawnValues> r = DrawnExpectedValues(BlockSideDrawn(), p, unknown);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "the resources of matmul_dynamic_kernel are unknown: the build reports no kernel "
            "named matmul_dynamic_kernel");
  QueryDrawn no_bytes = BlockSideDrawn();
  no_bytes.known.clear();
  const Result<DrawnValues> r2 = DrawnExpectedValues(no_bytes, p, KernelOf(32));
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error(), "the suggested block side needs shared_bytes_per_thread (in drawn.known)");
}

TEST(DrawnExpectedTest, WithoutAFormulaTheHarnessesValuesStand) {
  EXPECT_TRUE(DrawnExpectedValues(QueryDrawn{}, {{"n", 1}})->expected.empty());
}

}  // namespace
}  // namespace labkit
