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
            "reversed: 7 6 5 4 3 2 1 0 15 14 13 12 11 10 9 8\n"
            "sums: 28 92\n");
#endif
}

}  // namespace
}  // namespace emu::testing
