// The GPU backend's wrong values explained by the emulator (emulator_diagnosis.h), driven by the
// scripted harness and a scripted builder: which cases reach the emulator, what its findings do to
// the message, and that a submission with right values never builds for it.
#include "emulator_diagnosis.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "mismatch.h"
#include "scripted_harness_test_util.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace testing_harness;

// One replayed matmul exercise graded on the GPU backend, its GPU builds already made.
class EmulatorDiagnosisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("labkit_emu_diagnosis_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    spec_ = OneKernelLab({{16, 16, 16}, {29, 29, 29}});
    for (Flavour f : {Flavour::kDefault, Flavour::kNoFma})
      builds_[f] = ScriptedBuild(dir_ + "/" + ToString(f));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `with_builder` false: graded as before this check existed (no way to build for the emulator).
  ExerciseVerdict Grade(Backend backend = Backend::kGpu, bool with_builder = true) {
    GradeEnv env{harness_, manifest_, spec_, backend, 7, dir_ + "/work"};
    env.builds = builds_;
    env.src_dir = dir_;
    if (with_builder) env.builder = &builder_;
    const std::vector<ExerciseVerdict> verdicts = GradeExercises(env, spec_.exercises);
    EXPECT_EQ(verdicts.size(), 1u);
    return verdicts.at(0);
  }

  int EmulatorRuns() const {
    int runs = 0;
    for (const HarnessCall& call : harness_.calls) runs += call.build == "emulator";
    return runs;
  }

  // The GPU's default build gets C(0, 0) of case 29x29x29 wrong; `on_emulator` answers the
  // emulator's run of it.
  void WrongOnGpu(std::function<CaseAnswer()> on_emulator) {
    harness_.on_case = [on_emulator](const HarnessCall& call, const std::string& id) {
      if (call.build == "emulator") return on_emulator();
      CaseAnswer a;
      if (call.build == "default" && id == "tiled_1") a.values = CaseAnswer::Values::kWrong;
      return a;
    };
  }

  std::string dir_;
  LabSpec spec_;
  Manifest manifest_;
  std::map<Flavour, BuildOutcome> builds_;
  ScriptedHarness harness_;
  ScriptedBuilder builder_{harness_, manifest_, spec_};
};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST_F(EmulatorDiagnosisTest, TheEmulatorsDiagnosticBecomesTheCause) {
  WrongOnGpu([] {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorLaunchFailure";
    a.emu_diagnostic = {{"kind", "divergent_barrier"},
                        {"kernel", "_Z8tiledAnyPKfS0_Pfiii"},
                        {"block", {1, 1, 0}},
                        {"detail",
                         "threads 0-12 wait at a barrier while threads 13-255 have "
                         "returned"}};
    return a;
  });
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);  // the GPU's verdict
  EXPECT_EQ(v.cause, "wrong_result");
  const std::string first = FirstLine(v.message);
  EXPECT_EQ(first.rfind("wrong result in case 29x29x29 (m x n x k): __syncthreads() reached by "
                        "only some threads of a block in tiledAny",
                        0),
            0u)
      << v.message;
  EXPECT_TRUE(Has(first, "threads 13-255 have returned")) << v.message;
  EXPECT_TRUE(Has(first, "(found by re-running this case on the CPU emulator)")) << v.message;
  // What the GPU computed is still there, after the cause.
  EXPECT_TRUE(Has(v.message, "What came out on the GPU:\nwrong result in case 29x29x29"))
      << v.message;
  ASSERT_EQ(builder_.asked.size(), 1u);
  EXPECT_EQ(builder_.asked[0].backend, Backend::kCpu);
  EXPECT_EQ(builder_.asked[0].flavour, Flavour::kDefault);
  EXPECT_GE(EmulatorRuns(), 1);
  // The emulator needs no GPU: its runs take no turn at the GPU gate, so a timed run never waits
  // for one (a hang there lasts the whole time limit); the GPU's own runs do.
  for (const HarnessCall& call : harness_.calls)
    EXPECT_EQ(call.gpu == GpuUse::kNone, call.build == "emulator")
        << call.build << " " << call.mode;
}

TEST_F(EmulatorDiagnosisTest, ValuesFromMemoryNeverWrittenAreNamed) {
  WrongOnGpu([] {
    CaseAnswer a;
    a.values = CaseAnswer::Values::kPoison;
    return a;
  });
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  const std::string first = FirstLine(v.message);
  EXPECT_TRUE(Has(first,
                  "wrong result in case 29x29x29 (m x n x k): C at row 0, column 0 was "
                  "computed from memory that nothing had written"))
      << v.message;
  EXPECT_TRUE(Has(first, "must be zero-filled")) << v.message;
  EXPECT_TRUE(Has(first, "(found by re-running this case on the CPU emulator)")) << v.message;
}

// A partial tile left unfilled holds an earlier tile's values on both machines; only a case with
// no earlier tile shows the emulator's NaN, and that case is named.
TEST_F(EmulatorDiagnosisTest, MemoryNeverWrittenMayShowInAnotherCase) {
  harness_.on_case = [](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (call.build == "default" && id == "tiled_1") a.values = CaseAnswer::Values::kWrong;
    if (call.build == "emulator")
      a.values = id == "tiled_1" ? CaseAnswer::Values::kWrong : CaseAnswer::Values::kPoison;
    return a;
  };
  const ExerciseVerdict v = Grade();
  const std::string first = FirstLine(v.message);
  EXPECT_EQ(first.rfind("wrong result in case 29x29x29 (m x n x k): in case 16x16x16 (m x n x k), "
                        "C at row 0, column 0 was computed from memory that nothing had written",
                        0),
            0u)
      << v.message;
  EXPECT_TRUE(Has(first, "(found by re-running the exercise's cases on the CPU emulator)"))
      << v.message;
}

// The emulator's report of one case is never told as the cause of another's failure.
TEST_F(EmulatorDiagnosisTest, ADiagnosticOfAnotherCaseIsNotTaken) {
  harness_.on_case = [](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (id != "tiled_1") {
      if (call.build == "emulator") {
        a.status = "cuda_error";
        a.emu_diagnostic = {{"kind", "out_of_bounds"}, {"access", "read"}};
      }
      return a;
    }
    if (call.build == "default" || call.build == "emulator") a.values = CaseAnswer::Values::kWrong;
    return a;
  };
  const std::string before = Grade(Backend::kGpu, /*with_builder=*/false).message;
  EXPECT_EQ(Grade().message, before);
  EXPECT_GE(EmulatorRuns(), 1);
}

TEST_F(EmulatorDiagnosisTest, AFailedEmulatorBuildLeavesTheGpuMessage) {
  WrongOnGpu([] { return CaseAnswer{}; });
  const std::string before = Grade(Backend::kGpu, /*with_builder=*/false).message;
  builder_.succeeds = false;
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.message, before);
  EXPECT_TRUE(Has(v.message, "wrong result in case 29x29x29")) << v.message;
  EXPECT_EQ(builder_.asked.size(), 1u);
  EXPECT_EQ(EmulatorRuns(), 0);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_TRUE(Has(v.notes[0], "cause not looked for on the CPU emulator")) << v.notes[0];
}

TEST_F(EmulatorDiagnosisTest, ACaseTheEmulatorGetsRightLeavesTheGpuMessage) {
  WrongOnGpu([] { return CaseAnswer{}; });
  const std::string before = Grade(Backend::kGpu, /*with_builder=*/false).message;
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.message, before);
  EXPECT_FALSE(Has(v.message, "emulator")) << v.message;
  EXPECT_GE(EmulatorRuns(), 1);  // it was asked, and had nothing to add
}

TEST_F(EmulatorDiagnosisTest, TheSameWrongValuesOnTheEmulatorLeaveTheGpuMessage) {
  WrongOnGpu([] {
    CaseAnswer a;
    a.values = CaseAnswer::Values::kWrong;  // written, and wrong for the same reason
    return a;
  });
  const std::string before = Grade(Backend::kGpu, /*with_builder=*/false).message;
  EXPECT_EQ(Grade().message, before);
  EXPECT_GE(EmulatorRuns(), 1);
}

TEST_F(EmulatorDiagnosisTest, RightValuesNeverBuildForTheEmulator) {
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_TRUE(builder_.asked.empty());
  EXPECT_EQ(EmulatorRuns(), 0);
}

TEST_F(EmulatorDiagnosisTest, ARaceRacecheckFoundKeepsItsMessage) {
  WrongOnGpu([] { return CaseAnswer{}; });
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    p.sanitizer_log =
        call.tool == "racecheck"
            ? "========= Error: Race reported between Write access and Read access\n"
              "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"
            : "========= ERROR SUMMARY: 0 errors\n";
    if (call.tool == "racecheck") p.exit_code = kComputeSanitizerFoundExitCode;
    return p;
  };
  const ExerciseVerdict v = Grade();
  EXPECT_TRUE(Has(FirstLine(v.message), "a race in shared memory")) << v.message;
  EXPECT_TRUE(builder_.asked.empty());
}

TEST_F(EmulatorDiagnosisTest, TheCpuBackendAndFailuresOtherThanValuesDoNotAskIt) {
  WrongOnGpu([] { return CaseAnswer{}; });
  EXPECT_EQ(Grade(Backend::kCpu).status, GradeStatus::kFailed);
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorIllegalAddress";
    return a;
  };
  EXPECT_EQ(Grade().status, GradeStatus::kFailed);
  EXPECT_TRUE(builder_.asked.empty());
}

TEST(NeverWrittenMemoryCause, CountsOnlyElementsTheGpuWrote) {
  const Shape shape{2, 5, 3};  // C is 2 x 3
  const float poison = FloatFromBits(kPoisonBits);
  const float gpu_nan = FloatFromBits(0x7FFFFFFFu);  // a NaN the GPU computed: written
  const std::vector<float> gpu = {1, poison, gpu_nan, 4, 5, 6};
  const std::vector<float> emulator = {1, poison, poison, 4, poison, 6};
  const EmulatorCause cause = NeverWrittenMemoryCause(shape, gpu, emulator);
  EXPECT_EQ(cause.kind, EmulatorCause::Kind::kNeverWrittenMemory);
  EXPECT_EQ(cause.elements, 2);  // (0, 2) and (1, 1); (0, 1) the GPU never wrote either
  EXPECT_EQ(cause.row, 0);
  EXPECT_EQ(cause.col, 2);
  EXPECT_TRUE(Has(cause.text, "C at row 0, column 2 and 1 other element were computed"))
      << cause.text;
}

TEST(NeverWrittenMemoryCause, NothingWhenTheEmulatorHasNoFillInWrittenElements) {
  const Shape shape{1, 1, 2};
  const float poison = FloatFromBits(kPoisonBits);
  EXPECT_FALSE(NeverWrittenMemoryCause(shape, {1, 2}, {3, 4}).found());
  EXPECT_FALSE(NeverWrittenMemoryCause(shape, {poison, poison}, {poison, poison}).found());
  EXPECT_FALSE(NeverWrittenMemoryCause(shape, {1, 2}, {}).found());  // no output: nothing to say
}

}  // namespace
}  // namespace labkit
