#include "case_diagnostic.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

using nlohmann::json;

// Issue 13's run: every case launches the same kernel; case 517x300x263 reads past B, then case
// 1x1x1 fails on its own (a grid rounded down to 0 blocks), with no diagnostic of its own.
HarnessRun SameKernelInEveryCase() {
  HarnessRun run;
  run.emu_diagnostics = {
      json::parse(R"({"kind": "bad_copy", "call": "cudaMemcpy", "case": "c0"})"),
      json::parse(R"({"kind": "out_of_bounds", "kernel": "_Z5tiledv", "case": "c3"})"),
      json::parse(R"({"kind": "divergent_barrier", "kernel": "_Z5tiledv", "case": "c3"})"),
      json::parse(R"({"kind": "leak", "kernel": "_Z5tiledv"})")};
  return run;
}

CaseRun Case(const std::string& id, bool reported = true) {
  CaseRun c;
  c.id = id;
  c.reported = reported;
  c.status = "cuda_error";
  LaunchInfo l;
  l.kernel = "_Z5tiledv";
  c.launches.push_back(l);
  return c;
}

// Before, a case took the first diagnostic about a kernel it launched, whichever case it came from.
TEST(EmuDiagnosticFor, ACaseNeverTakesAnotherCasesDiagnosticAboutTheSameKernel) {
  const HarnessRun run = SameKernelInEveryCase();
  EXPECT_EQ(EmuDiagnosticFor(run, Case("c1")), nullptr);
  EXPECT_EQ(EmuDiagnosticFor(run, Case("c1", /*reported=*/false)), nullptr);
}

TEST(EmuDiagnosticFor, AFailingCaseTakesTheFirstDiagnosticWithItsId) {
  const HarnessRun run = SameKernelInEveryCase();
  const json* d = EmuDiagnosticFor(run, Case("c3"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "out_of_bounds");
  d = EmuDiagnosticFor(run, Case("c0"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "bad_copy");
}

TEST(EmuDiagnosticFor, ACaseThatDiedTakesTheLastDiagnosticWithItsId) {
  const HarnessRun run = SameKernelInEveryCase();
  const json* d = EmuDiagnosticFor(run, Case("c3", /*reported=*/false));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "divergent_barrier");
}

// Written outside any case (a static initialiser, the process's exit): no case's.
TEST(EmuDiagnosticFor, ADiagnosticWithoutACaseBelongsToNone) {
  HarnessRun run;
  run.emu_diagnostics = {json::parse(R"({"kind": "leak", "kernel": "_Z5tiledv"})")};
  EXPECT_EQ(EmuDiagnosticFor(run, Case("c0")), nullptr);
  EXPECT_EQ(EmuDiagnosticFor(run, Case("c0", /*reported=*/false)), nullptr);
  EXPECT_EQ(EmuDiagnosticFor(run.emu_diagnostics, "", false), nullptr);
  EXPECT_EQ(EmuDiagnosticFor(HarnessRun{}, Case("c0")), nullptr);
}

TEST(DiagnosticsWithPrefix, KeepsOneGroupsCasesUnderTheirOwnIds) {
  const std::vector<json> all = {json::parse(R"({"kind": "a", "case": "g0_c1"})"),
                                 json::parse(R"({"kind": "b", "case": "g1_c1"})"),
                                 json::parse(R"({"kind": "c", "case": "g1_"})"),
                                 json::parse(R"({"kind": "d"})")};
  const std::vector<json> g1 = DiagnosticsWithPrefix(all, "g1_");
  ASSERT_EQ(g1.size(), 1u);
  EXPECT_EQ(g1[0]["kind"], "b");
  EXPECT_EQ(g1[0]["case"], "c1");
  const json* d = EmuDiagnosticFor(g1, "c1", true);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ((*d)["kind"], "b");
}

}  // namespace
}  // namespace labkit
