#include "case_diagnostic.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

HarnessRun TwoDiagnostics() {
  HarnessRun run;
  run.emu_diagnostics = {
      nlohmann::json::parse(R"({"kind": "bad_copy", "call": "cudaMemcpy", "detail": "..."})"),
      nlohmann::json::parse(R"({"kind": "divergent_barrier", "kernel": "_Z5tiledv"})")};
  return run;
}

CaseRun Launching(const std::string& kernel, bool reported = true) {
  CaseRun c;
  c.reported = reported;
  c.status = "cuda_error";
  LaunchInfo l;
  l.kernel = kernel;
  c.launches.push_back(l);
  return c;
}

// Before, the run's first diagnostic (here the copy) went with any failing case.
TEST(EmuDiagnosticFor, AFailingCaseGetsTheDiagnosticAboutItsOwnKernel) {
  const HarnessRun run = TwoDiagnostics();
  const nlohmann::json* d = EmuDiagnosticFor(run, Launching("_Z5tiledv"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "divergent_barrier");
}

TEST(EmuDiagnosticFor, NoneWhenNoDiagnosticIsAboutTheCase) {
  const HarnessRun run = TwoDiagnostics();
  EXPECT_EQ(EmuDiagnosticFor(run, Launching("_Z4rowsv")), nullptr);
  EXPECT_EQ(EmuDiagnosticFor(HarnessRun{}, Launching("_Z5tiledv")), nullptr);
}

TEST(EmuDiagnosticFor, ACaseThatDiedGetsTheLastDiagnosticTheFaultWrote) {
  const HarnessRun run = TwoDiagnostics();
  const nlohmann::json* d = EmuDiagnosticFor(run, Launching("_Z4rowsv", /*reported=*/false));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "divergent_barrier");
}

}  // namespace
}  // namespace labkit
