#include "build_plan.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

BuildOutcome Built(bool free_of_fma) {
  BuildOutcome build;
  build.ok = true;
  build.executable = "/work/build_default/harness";
  build.free_of_fma = free_of_fma;
  return build;
}

// The CPU backend's kernels are the x86-64 code objdump read: without an FMA instruction there,
// -ffp-contract=off compiles the same program.
TEST(NoFmaBuildNeeded, CpuBackendOnlyWhereTheDefaultBuildHoldsAnFma) {
  EXPECT_FALSE(NoFmaBuildNeeded(Backend::kCpu, Built(/*free_of_fma=*/true)));
  EXPECT_TRUE(NoFmaBuildNeeded(Backend::kCpu, Built(/*free_of_fma=*/false)));
}

// nvcc's fused multiply-adds are in the SASS, which the build does not read: -fmad=false is
// always built. The host code objdump read says nothing about the kernels.
TEST(NoFmaBuildNeeded, GpuBackendAlways) {
  EXPECT_TRUE(NoFmaBuildNeeded(Backend::kGpu, Built(/*free_of_fma=*/true)));
  EXPECT_TRUE(NoFmaBuildNeeded(Backend::kGpu, Built(/*free_of_fma=*/false)));
}

// A default build that failed decides every exercise; a compile bomb would only time out again.
TEST(NoFmaBuildNeeded, NotAfterTheDefaultBuildFailed) {
  for (const Backend backend : {Backend::kCpu, Backend::kGpu}) {
    BuildOutcome failed;
    failed.stage = "compile";
    failed.timed_out = true;
    EXPECT_FALSE(NoFmaBuildNeeded(backend, failed));
  }
}

TEST(NoFmaFromDefault, IsTheDefaultBuildMarkedAsSuch) {
  const BuildOutcome same = NoFmaFromDefault(Built(true));
  EXPECT_TRUE(same.ok);
  EXPECT_TRUE(same.reuses_default);
  EXPECT_EQ(same.executable, "/work/build_default/harness");
}

}  // namespace
}  // namespace labkit
