// The CPU backend end to end: e2e/sample.cu built with emu_add_executable() against emu::runtime.
// Skipped when the build has no emu::runtime target (CMakeLists.txt decides that at the end of
// configuring emu/, and only then defines EMU_E2E_SAMPLE).
#include <gtest/gtest.h>

#include "process_util.h"

namespace emu::testing {
namespace {

TEST(EndToEnd, SampleRunsOnTheRuntime) {
#ifndef EMU_E2E_SAMPLE
  GTEST_SKIP() << "emu::runtime is not part of this build";
#else
  const CommandOutput run = run_command(EMU_E2E_SAMPLE);
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output,
            "reversed: 14 12 10 8 6 4 2 0 30 28 26 24 22 20 18 16\n"
            "sums: 56 184\n");
#endif
}

}  // namespace
}  // namespace emu::testing
