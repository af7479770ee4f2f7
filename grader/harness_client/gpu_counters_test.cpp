#include "gpu_counters.h"

#include <gtest/gtest.h>

#include <fstream>

namespace labkit {
namespace {

// The shape of ncu 2025's CSV (seen on an H100, 2026-11-25): a rows kernel and a 16 x 16 tiled
// kernel on a 256 x 256 x 256 product, with the program's own output and ncu's notes around it.
const char* const kLog = R"csv(==PROF== Connected to process 584 (/tmp/harness)
done 0
==PROF== Disconnected from process 584
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","584","harness","127.0.0.1","_Z4rowsPKfS0_Pfi","1","7","(16, 16, 1)","(16, 16, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_global_ld.sum","inst","1,048,576"
"0","584","harness","127.0.0.1","_Z4rowsPKfS0_Pfi","1","7","(16, 16, 1)","(16, 16, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_global_st.sum","inst","2,048"
"0","584","harness","127.0.0.1","_Z4rowsPKfS0_Pfi","1","7","(16, 16, 1)","(16, 16, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_ld.sum","inst","0"
"0","584","harness","127.0.0.1","_Z4rowsPKfS0_Pfi","1","7","(16, 16, 1)","(16, 16, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_st.sum","inst","0"
"1","584","harness","127.0.0.1","_Z5tiledILi4EEvPKfS1_Pfi","1","7","(4, 4, 1)","(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_global_ld.sum","inst","524,288"
"1","584","harness","127.0.0.1","_Z5tiledILi4EEvPKfS1_Pfi","1","7","(4, 4, 1)","(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_global_st.sum","inst","4,096"
"1","584","harness","127.0.0.1","_Z5tiledILi4EEvPKfS1_Pfi","1","7","(4, 4, 1)","(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_ld.sum","inst","1,310,720"
"1","584","harness","127.0.0.1","_Z5tiledILi4EEvPKfS1_Pfi","1","7","(4, 4, 1)","(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_st.sum","inst","524,288"
)csv";

TEST(GpuCounters, ReadsEveryLaunchOfTheTableInOrder) {
  const auto launches = ParseCounterLog(kLog);
  ASSERT_TRUE(launches.has_value());
  ASSERT_EQ(launches->size(), 2u);
  EXPECT_EQ((*launches)[0].kernel, "_Z4rowsPKfS0_Pfi");
  EXPECT_EQ((*launches)[0].block_threads, 256);
  EXPECT_EQ((*launches)[0].global_load_instructions, 1048576);
  EXPECT_EQ((*launches)[1].kernel, "_Z5tiledILi4EEvPKfS1_Pfi");
  EXPECT_EQ((*launches)[1].block_threads, 16);
  EXPECT_EQ((*launches)[1].shared_load_instructions, 1310720);
}

TEST(GpuCounters, WarpCountsBecomeThreadCounts) {
  const auto launches = ParseCounterLog(kLog);
  ASSERT_TRUE(launches.has_value());
  // rows: 2048 full warps, 512 loads per thread = 2n floats per element of C.
  const MemoryAccesses rows = AccessesOf((*launches)[0]);
  EXPECT_EQ(rows.global_load_bytes / 4 / (256 * 256), 2 * 256);
  EXPECT_EQ(rows.global_store_bytes / 4, 256 * 256);
  // 4 x 4 tiles: a block of 16 threads is one half-full warp; 2n / 4 floats per element of C.
  const MemoryAccesses tiled = AccessesOf((*launches)[1]);
  EXPECT_EQ(tiled.global_load_bytes / 4 / (256 * 256), 2 * 256 / 4);
  EXPECT_EQ(tiled.global_store_bytes / 4, 256 * 256);
  // 64 phases of one 128-bit load of A's tile row and 4 loads of B's tile column (nvcc's code).
  EXPECT_EQ(tiled.shared_loads / (256 * 256), 64 * 5);
}

// The counts of a probe on an H100 (2026-11-27): 16 x 16 blocks, 16 of them, each thread reading
// 256 values of A and 256 of B. Atomics that return the old value (atomicAdd(p, 0u)) read as
// surely as a load; cp.async copies global memory into shared memory; one bulk copy
// (cuda::memcpy_async) per row of A moved 262144 bytes, beside n loads of B per thread.
const char* const kOtherReads = R"csv("ID","Kernel Name","Block Size","Metric Name","Metric Value"
"0","_Z6k_atomPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_global_ld.sum","0"
"0","_Z6k_atomPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_global_st.sum","128"
"0","_Z6k_atomPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_global_atom.sum","65,536"
"1","_Z8k_ldgstsPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_global_ld.sum","0"
"1","_Z8k_ldgstsPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_ldgsts.sum","65,536"
"2","_Z6k_bulkPKfS0_Pf","(16, 16, 1)","smsp__sass_inst_executed_op_global_ld.sum","32,768"
"2","_Z6k_bulkPKfS0_Pf","(16, 16, 1)","l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum","262,144"
"3","_Z5k_redPf","(16, 16, 1)","smsp__sass_inst_executed_op_global_red.sum","128"
)csv";

TEST(GpuCounters, AtomicsAsyncAndBulkCopiesAreGlobalReads) {
  const auto launches = ParseCounterLog(kOtherReads);
  ASSERT_TRUE(launches.has_value());
  ASSERT_EQ(launches->size(), 4u);
  const long long two_n_per_thread = 16 * 256 * 2 * 256;  // 16 blocks of 256 threads, 2n each
  const MemoryAccesses atomics = AccessesOf((*launches)[0]);
  EXPECT_EQ(atomics.global_load_bytes / 4, two_n_per_thread);
  EXPECT_EQ(atomics.global_store_bytes / 4, two_n_per_thread + 16 * 256);
  EXPECT_EQ(AccessesOf((*launches)[1]).global_load_bytes / 4, two_n_per_thread);
  EXPECT_EQ(AccessesOf((*launches)[2]).global_load_bytes, 4 * two_n_per_thread / 2 + 262144);
  // atomicAdd into C with the old value unused: a store per element, no load.
  const MemoryAccesses reductions = AccessesOf((*launches)[3]);
  EXPECT_EQ(reductions.global_load_bytes, 0);
  EXPECT_EQ(reductions.global_store_bytes / 4, 16 * 256);
}

TEST(GpuCounters, NoTableMeansNothingWasCounted) {
  EXPECT_FALSE(ParseCounterLog("==ERROR== ERR_NVGPUCTRPERM - no permission\n").has_value());
  EXPECT_FALSE(ParseCounterLog("\"ID\",\"something\"\n\"0\",\"1\"\n").has_value());
}

TEST(GpuCounters, NcusErrorLineIsItsReason) {
  EXPECT_EQ(CounterLogError("==PROF== x\n==ERROR== ERR_NVGPUCTRPERM - no permission\nmore\n"),
            "==ERROR== ERR_NVGPUCTRPERM - no permission");
  EXPECT_EQ(CounterLogError(kLog), "");
}

TEST(GpuCounters, OnlyTheMachinesOwnRefusalLetsAGradeRestOnDeclarations) {
  EXPECT_TRUE(CannotCountHere("==ERROR== machine: profiler initialisation: no permission\n"));
  EXPECT_FALSE(CannotCountHere("==ERROR== run: starting the profiler: busy\n"));
  EXPECT_FALSE(CannotCountHere("==ERROR== ERR_NVGPUCTRPERM - no permission\n"));  // no kind
  EXPECT_FALSE(CannotCountHere("x machine: words elsewhere\n"));
  EXPECT_FALSE(CannotCountHere(""));  // no table at all: the run died
  EXPECT_FALSE(CannotCountHere(kLog));
}

TEST(GpuCounters, TheDriversSettingSaysWhoMayCount) {
  const std::string path = ::testing::TempDir() + "/nvidia_params";
  std::ofstream(path) << "ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nOther: 0\n";
  EXPECT_EQ(DriverCounterAccess(path), CounterAccess::kAdminsOnly);
  std::ofstream(path) << "RmProfilingAdminOnly: 0\n";
  EXPECT_EQ(DriverCounterAccess(path), CounterAccess::kEveryone);
  std::ofstream(path) << "RmProfilingAdminOnly: yes\n";
  EXPECT_EQ(DriverCounterAccess(path), CounterAccess::kUnknown);
  std::ofstream(path) << "NoSuchSetting: 1\n";
  EXPECT_EQ(DriverCounterAccess(path), CounterAccess::kUnknown);
  EXPECT_EQ(DriverCounterAccess(path + ".missing"), CounterAccess::kUnknown);
}

TEST(GpuCounters, LastLineSkipsBlankOnes) {
  EXPECT_EQ(LastLine("a\nunrecognised option '--x'\n\n  \n"), "unrecognised option '--x'");
  EXPECT_EQ(LastLine(""), "");
}

TEST(GpuCounters, TheProgramsOwnLinesBeforeTheHeaderAreIgnored) {
  const std::string forged =
      "\"0\",\"1\",\"h\",\"h\",\"_Z4rowsPKfS0_Pfi\",\"1\",\"7\",\"(16, 16, 1)\",\"(1, 1, 1)\",\"0\","
      "\"9.0\",\"x\",\"smsp__sass_inst_executed_op_global_ld.sum\",\"inst\",\"1\"\n";
  const auto launches = ParseCounterLog(forged + kLog);
  ASSERT_TRUE(launches.has_value());
  EXPECT_EQ((*launches)[0].global_load_instructions, 1048576);
}

TEST(GpuCounters, OnlyTheLastTableCounts) {
  const std::string forged =
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Metric Name\",\"Metric Value\"\n"
      "\"0\",\"_Z5decoyv\",\"(1, 1, 1)\",\"smsp__sass_inst_executed_op_global_ld.sum\",\"1\"\n";
  const auto launches = ParseCounterLog(forged + kLog);
  ASSERT_TRUE(launches.has_value());
  ASSERT_EQ(launches->size(), 2u);
  EXPECT_EQ((*launches)[0].kernel, "_Z4rowsPKfS0_Pfi");
}

TEST(GpuCounters, LaunchesGetTheCountsOfTheirOwnKernelInOrder) {
  const auto profiled = ParseCounterLog(kLog);
  ASSERT_TRUE(profiled.has_value());
  std::vector<CaseRun> cases(1);
  LaunchInfo tiled, rows, unknown;
  tiled.kernel = "_Z5tiledILi4EEvPKfS1_Pfi";
  rows.kernel = "_Z4rowsPKfS0_Pfi";
  unknown.kernel = "_Z5decoyv";
  cases[0].launches = {rows, unknown, tiled};
  AttachCounts(cases, *profiled);
  ASSERT_TRUE(cases[0].launches[0].accesses.has_value());
  EXPECT_EQ(cases[0].launches[0].accesses->global_load_bytes, 4LL * 512 * 256 * 256);
  EXPECT_FALSE(cases[0].launches[1].accesses.has_value());
  ASSERT_TRUE(cases[0].launches[2].accesses.has_value());
  EXPECT_EQ(cases[0].launches[2].accesses->global_load_bytes, 4LL * 128 * 256 * 256);
}

}  // namespace
}  // namespace labkit
