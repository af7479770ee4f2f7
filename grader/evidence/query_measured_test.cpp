#include "query_measured.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

constexpr long long kPoints = 4096;
const char kStaged[] = "_Z26float3_scale_staged_kernelPKfPfif";

// Lab 02's rule for the staged float3 kernel (labs/02_global_memory/lab.yaml).
QueryMeasured StagedRule() {
  QueryMeasured rule;
  rule.params = {{"n", kPoints}};
  rule.per = "n";
  rule.min_shared_stores_per_element = 3;
  rule.min_shared_loads_per_element = 3;
  rule.max_global_loads_per_element = 3;
  rule.max_global_stores_per_element = 3;
  rule.executes_barrier = true;
  return rule;
}

// A launch whose threads did, per point, what the arguments say (global figures in floats).
LaunchInfo Launch(const std::string& kernel, long long global_loads, long long global_stores,
                  long long shared_loads, long long shared_stores, long long barriers) {
  LaunchInfo l;
  l.kernel = kernel;
  MemoryAccesses& a = l.accesses.emplace();
  a.global_load_bytes = 4 * global_loads * kPoints;
  a.global_store_bytes = 4 * global_stores * kPoints;
  a.shared_loads = shared_loads * kPoints;
  a.shared_stores = shared_stores * kPoints;
  a.barriers = barriers;
  return l;
}

TEST(QueryMeasured, StagingThroughSharedMemoryPasses) {
  // The reference: in, scaled in place, out (6 shared accesses each way per point).
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {Launch(kStaged, 3, 3, 6, 6, 32)}, true), "");
  // Scaling on the way in is staging too: 3 each way.
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {Launch(kStaged, 3, 3, 3, 3, 16)}, true), "");
}

TEST(QueryMeasured, DirectKernelUnderTheStagedNameFailsWithTheFigures) {
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {Launch(kStaged, 3, 3, 0, 0, 0)}, true),
            "float3_scale_staged_kernel, measured with n = 4096, per element: 3.0 floats loaded "
            "from global memory and 3.0 stored; 0.0 loads from shared memory and 0.0 stores to "
            "it; 0 __syncthreads() passed. Staging takes at least 3.0 stores to shared memory per "
            "element: every value goes into a __shared__ buffer, loaded there by consecutive "
            "threads");
}

TEST(QueryMeasured, BufferInGlobalMemoryFails) {
  // Lab 02's mutant: the "buffer" is the output array, so every access stays global.
  const std::string why =
      CheckQueryMeasured(StagedRule(), {Launch(kStaged, 9, 9, 0, 0, 32)}, true);
  EXPECT_NE(why.find("9.0 floats loaded from global memory and 9.0 stored"), std::string::npos)
      << why;
  EXPECT_NE(why.find("stores to shared memory"), std::string::npos) << why;
}

TEST(QueryMeasured, GlobalReadsBesideADecoyBufferFail) {
  // Fills the buffer but then reads its point from global memory again.
  const std::string why =
      CheckQueryMeasured(StagedRule(), {Launch(kStaged, 6, 3, 3, 3, 16)}, true);
  EXPECT_NE(why.find("At most 3.0 floats per element may be loaded"), std::string::npos) << why;
  const std::string stores =
      CheckQueryMeasured(StagedRule(), {Launch(kStaged, 3, 6, 3, 3, 16)}, true);
  EXPECT_NE(stores.find("At most 3.0 floats per element may be stored"), std::string::npos)
      << stores;
}

TEST(QueryMeasured, SharedLoadsAreCheckedApartFromStores) {
  const std::string why =
      CheckQueryMeasured(StagedRule(), {Launch(kStaged, 3, 3, 0, 3, 16)}, true);
  EXPECT_NE(why.find("loads from shared memory per element"), std::string::npos) << why;
}

TEST(QueryMeasured, BarrierCheckedOnlyWhereCounted) {
  const LaunchInfo no_barrier = Launch(kStaged, 3, 3, 6, 6, 0);
  EXPECT_NE(CheckQueryMeasured(StagedRule(), {no_barrier}, true).find("__syncthreads()"),
            std::string::npos);
  // On a GPU there is no counter of barriers: neither the figure nor the check.
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {no_barrier}, false), "");
}

TEST(QueryMeasured, CountsAreSummedOverLaunches) {
  // Two launches that each did half the points' work add up to one that did all of it.
  LaunchInfo half = Launch(kStaged, 3, 3, 3, 3, 16);
  half.accesses->global_load_bytes /= 2;
  half.accesses->global_store_bytes /= 2;
  half.accesses->shared_loads /= 2;
  half.accesses->shared_stores /= 2;
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {half, half}, true), "");
  EXPECT_NE(CheckQueryMeasured(StagedRule(), {half}, true), "");
}

TEST(QueryMeasured, MissingCountsOrLaunchesAreSaid) {
  LaunchInfo uncounted;
  uncounted.kernel = kStaged;
  EXPECT_NE(CheckQueryMeasured(StagedRule(), {uncounted}, true).find("a fault of the grader"),
            std::string::npos);
  EXPECT_EQ(CheckQueryMeasured(StagedRule(), {}, true),
            "the kernel was never launched in the counted case (n = 4096)");
  const std::vector<LaunchInfo> many(64, Launch(kStaged, 0, 0, 0, 0, 0));
  EXPECT_NE(CheckQueryMeasured(StagedRule(), many, true).find("64 or more launches"),
            std::string::npos);
}

}  // namespace
}  // namespace labkit
