// The judge without processes: GradeExercises driven by a scripted harness (scripted_harness.h),
// so that each status and cause a verdict can take is checked in milliseconds.
#include "exercise_grader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "scripted_harness.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace testing_harness;

// One matmul exercise (a kernel, so replayed) on two small shapes, graded with a scripted harness.
class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("labkit_judge_" + std::to_string(getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    spec_ = OneKernelLab({{16, 16, 16}, {17, 5, 9}});
    for (Flavour f : {Flavour::kDefault, Flavour::kNoFma})
      builds_[f] = ScriptedBuild(dir_ + "/" + ToString(f));
  }
  void TearDown() override { fs::remove_all(dir_); }

  ExerciseVerdict Grade(Backend backend) {
    GradeEnv env{harness_, manifest_, spec_, backend, 7, dir_ + "/work"};
    env.builds = builds_;
    const std::vector<ExerciseVerdict> verdicts = GradeExercises(env, spec_.exercises);
    EXPECT_EQ(verdicts.size(), 1u);
    return verdicts.at(0);
  }

  std::string dir_;
  LabSpec spec_;
  Manifest manifest_;
  std::map<Flavour, BuildOutcome> builds_;
  ScriptedHarness harness_;
};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(JudgeTest, RightValuesEverywherePass) {
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_EQ(v.cause, "");
  EXPECT_EQ(v.message, "");
  // Default and nofma builds, each a record and a replay; then two other thread orders.
  ASSERT_GE(harness_.calls.size(), 6u);
  EXPECT_EQ(harness_.calls[0].mode, "--record");
  EXPECT_EQ(harness_.calls[1].mode, "--replay");
}

TEST_F(JudgeTest, WrongValuesFailWithTheWrongResultCause) {
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.build == "default") a.values = CaseAnswer::Values::kWrong;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_result");
  EXPECT_TRUE(Has(v.message, "wrong result in case 16x16x16")) << v.message;
}

TEST_F(JudgeTest, AnUlpOffWithoutFusedMultiplyAddFails) {
  harness_.on_case = [](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (call.build == "nofma" && id == "tiled_0") a.values = CaseAnswer::Values::kUlpOff;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_result");
  EXPECT_TRUE(Has(v.message, "fused multiply-add off")) << v.message;
}

TEST_F(JudgeTest, CudaErrorsNameTheUsualCause) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorIllegalAddress";
    a.detail = "an illegal memory access was encountered";
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "cuda_error");
  EXPECT_TRUE(Has(v.message, "CUDA error cudaErrorIllegalAddress")) << v.message;
  EXPECT_TRUE(Has(v.message, "Usual cause: an index outside A, B or C")) << v.message;
}

TEST_F(JudgeTest, ALaunchNoGpuAcceptsIsSaidPlainly) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorInvalidConfiguration";
    a.launches[0]["block"] = {64, 32, 1};
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "launch_configuration");
  EXPECT_TRUE(Has(v.message, "2048 threads; a block holds at most 1024")) << v.message;
}

TEST_F(JudgeTest, EachHarnessStatusGetsItsMessage) {
  struct Expected {
    std::string status, cause, message;
  };
  const std::vector<Expected> statuses = {
      {"guard_violation", "guard_violation", "without a bounds check"},
      {"input_modified", "input_modified", "A and B are inputs"},
      {"replay_refused", "replay_refused", "it cannot repeat this"},
      {"something_new", "harness_status", "the harness reported something_new"}};
  for (const auto& [status, cause, expected] : statuses) {
    harness_.on_case = [status = status](const HarnessCall&, const std::string&) {
      CaseAnswer a;
      a.status = status;
      a.detail = "details";
      return a;
    };
    const ExerciseVerdict v = Grade(Backend::kCpu);
    EXPECT_EQ(v.status, GradeStatus::kFailed) << status;
    EXPECT_EQ(v.cause, cause) << status;
    EXPECT_TRUE(Has(v.message, expected)) << status << ": " << v.message;
  }
}

TEST_F(JudgeTest, ACaseNeverReportedIsACrashOrATimeout) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "";
    return a;
  };
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    p.done = false;
    if (call.mode == "--replay") p.signal = 11;
    return p;
  };
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kCrashed);
  EXPECT_EQ(v.cause, "crashed");
  EXPECT_TRUE(Has(v.message, "it crashed")) << v.message;

  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    p.done = false;
    p.timed_out = call.mode == "--replay";
    return p;
  };
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kTimeout);
  EXPECT_EQ(v.cause, "timeout");
  EXPECT_TRUE(Has(v.message, "did not finish within 60 s")) << v.message;
}

TEST_F(JudgeTest, AHarnessThatCannotStartIsTheGradersFault) {
  harness_.on_process = [](const HarnessCall&) {
    ProcessAnswer p;
    p.starts = false;
    return p;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "harness_not_started");
  EXPECT_TRUE(Has(v.message, "the grader could not run your function")) << v.message;
}

TEST_F(JudgeTest, AFailedBuildIsACompileError) {
  builds_[Flavour::kNoFma].ok = false;
  builds_[Flavour::kNoFma].stage = "compile";
  builds_[Flavour::kNoFma].message = "matmul.cu:3: error: expected ';'";
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kCompileError);
  EXPECT_EQ(v.cause, "compile");
  EXPECT_EQ(v.message, "matmul.cu:3: error: expected ';'");
}

TEST_F(JudgeTest, BitsThatChangeWithTheThreadOrderAreARace) {
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.order == "reverse") a.values = CaseAnswer::Values::kUlpOff;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "thread_order");
  EXPECT_TRUE(Has(v.message, "the result depends on the order in which threads run")) << v.message;
  EXPECT_TRUE(Has(v.message, "--tsan names the two lines")) << v.message;
}

// Threads whose store index lands on one element: the result changes with the thread order, and
// before, the cause given was "A missing __syncthreads()?". The values show where they belong.
TEST_F(JudgeTest, ValuesThatBelongElsewhereAreAStoreIndexNotABarrier) {
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.build == "default" && call.order.empty()) a.values = CaseAnswer::Values::kShifted;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "thread_order");
  EXPECT_EQ(v.message.rfind("several threads store into the same element of C, so the result "
                            "depends on the order in which they run: in case 16x16x16",
                            0),
            0u)
      << v.message;
  EXPECT_TRUE(Has(v.message, "C at row 0, column 0 holds the value of row 0, column 1"))
      << v.message;
  EXPECT_FALSE(Has(v.message, "__syncthreads")) << v.message;
}

TEST_F(JudgeTest, NoKernelLaunchedFailsTheTechnique) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.launches = json::array();
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  // Right values in both builds, not by the technique taught: failed, with the technique cause.
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message, "matmulTiled launched no kernel")) << v.message;
}

TEST_F(JudgeTest, ATechniqueItCannotCheckHereLeavesAPassUnchecked) {
  Technique t;
  t.uses_barrier = true;
  spec_.exercises[0].technique = t;
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed);
  EXPECT_TRUE(v.unchecked);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_TRUE(Has(v.notes[0], "technique not checked")) << v.notes[0];
}

// CPU backend without nvcc (no ptxas report): before, the barrier and the shared-memory rules were
// "not checked" and passed; the counting build's run says what the kernels did instead.
class EmulatedDeclarationsTest : public JudgeTest {
 protected:
  void SetUp() override {
    JudgeTest::SetUp();
    builds_[Flavour::kCounting] = ScriptedBuild(dir_ + "/counting");
    Technique t;
    t.uses_barrier = true;
    t.max_static_shared_bytes = 0;  // lab 04's dynamic tiles
    spec_.exercises[0].technique = t;
  }
  // The counting build's launches pass `barriers` barriers and reach `static_bytes` of
  // fixed-size __shared__ arrays.
  void Counts(long long barriers, long long static_bytes) {
    harness_.on_case = [=](const HarnessCall& call, const std::string&) {
      CaseAnswer a;
      if (call.build == "counting")
        a.launches[0]["accesses"] = {
            {"shared_loads", 64}, {"barriers", barriers}, {"static_shared_bytes", static_bytes}};
      return a;
    };
  }
};

TEST_F(EmulatedDeclarationsTest, TheCountsJudgeWhatPtxasWouldHave) {
  Counts(8, 0);
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_FALSE(v.unchecked);
  EXPECT_TRUE(v.notes.empty());

  Counts(0, 0);
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message, "tiled never waits at __syncthreads()")) << v.message;

  Counts(8, 2048);
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message, "tiled declares 2048 bytes of fixed-size __shared__ arrays"))
      << v.message;
}

// Registers are a GPU's: they stay unchecked, and the note says why.
TEST_F(EmulatedDeclarationsTest, RegistersStayUnchecked) {
  spec_.exercises[0].technique->max_registers = 64;
  Counts(8, 0);
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_TRUE(v.unchecked);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_TRUE(Has(v.notes[0], "registers and local memory not checked")) << v.notes[0];
}

TEST_F(JudgeTest, ParameterSetsSayWhichOneFailed) {
  spec_.exercises[0].params = {{{"block_side", 16}}, {{"block_side", 8}}};
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.exercise == "tiled?block_side=8") a.values = CaseAnswer::Values::kWrong;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.message.rfind("with block_side=8: wrong result", 0), 0u) << v.message;
}

// A harness whose memcheck runs leave `log`, every other sanitizer run a clean one.
std::function<ProcessAnswer(const HarnessCall&)> MemcheckLeaves(std::string log) {
  return [log](const HarnessCall& call) {
    ProcessAnswer p;
    p.sanitizer_log = call.tool == "memcheck" ? log : "========= ERROR SUMMARY: 0 errors\n";
    return p;
  };
}

TEST_F(JudgeTest, GpuBackendMemcheckFindingFails) {
  harness_.on_process = MemcheckLeaves(
      "========= Invalid __global__ read of size 4 bytes\n"
      "========= ERROR SUMMARY: 1 error\n");
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "memcheck");
  EXPECT_TRUE(Has(v.message, "Invalid __global__ read")) << v.message;
}

// Before, memcheck's read past the end of B was "reads outside device memory": the tool knows
// the address and its allocation, the harness where it put each case's A, B and C. The first line
// names the matrix, its shape, the element and the case; the earlier case that failed without a
// memory error, whose B sat at the same address, is not the one named.
TEST_F(JudgeTest, GpuBackendMemcheckNamesTheMatrixAndTheCase) {
  const auto buffers = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, const Shape& s) {
    return json::array({{{"name", "A"}, {"address", a}, {"bytes", s.m * s.n * 4}},
                        {{"name", "B"}, {"address", b}, {"bytes", s.n * s.k * 4}},
                        {{"name", "C"}, {"address", c}, {"bytes", s.m * s.k * 4}}});
  };
  harness_.on_case = [&](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (call.tool != "memcheck") return a;
    a.status = "cuda_error";
    a.error = id == "tiled_0" ? "cudaErrorInvalidConfiguration" : "cudaErrorLaunchFailure";
    // 16x16x16 then 17x5x9: B of the second case where the first case's B was.
    a.buffers = id == "tiled_0"
                    ? buffers(0x7f0000000000, 0x7f0000000400, 0x7f0000000800, {16, 16, 16})
                    : buffers(0x7f0000001000, 0x7f0000000400, 0x7f0000000800, {17, 5, 9});
    return a;
  };
  harness_.on_process = MemcheckLeaves(
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at tiled(const float *, const float *, float *, int, int, int)+0x1d0 in "
      "/s/matmul.cu:31\n"
      "=========     by thread (3,1,0) in block (0,0,0)\n"
      "=========     Address 0x7f00000004b4 is out of bounds\n"
      "=========     and is 1 bytes after the nearest allocation at 0x7f0000000400 of size 180 "
      "bytes\n"
      "========= ERROR SUMMARY: 1 error\n");
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "memcheck");
  const std::string first = v.message.substr(0, v.message.find('\n'));
  EXPECT_EQ(first,
            "an out-of-bounds read in tiled(const float *, const float *, float *, int, int, "
            "int), thread (3,1,0) of block (0,0,0) at /s/matmul.cu:31: element 45 of B (5 x 9), "
            "whose elements are 0 to 44 (1 past the end), in case 17x5x9 (m x n x k). "
            "compute-sanitizer memcheck found 1 error(s):")
      << v.message;
  EXPECT_TRUE(Has(v.message, "Usual cause: the load of B without a bounds check")) << v.message;
}

TEST_F(JudgeTest, GpuBackendSanitizerThatCannotRunIsTheGradersFault) {
  harness_.on_process = [](const HarnessCall&) { return ProcessAnswer{}; };  // no log
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "sanitizer_unavailable");
  EXPECT_TRUE(Has(v.message, "compute-sanitizer could not run here")) << v.message;
}

TEST_F(JudgeTest, GpuBackendCleanSanitizersPass) {
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  bool memcheck = false, racecheck = false;
  for (const HarnessCall& call : harness_.calls) {
    memcheck = memcheck || call.tool == "memcheck";
    racecheck = racecheck || call.tool == "racecheck";
  }
  EXPECT_TRUE(memcheck);
  EXPECT_TRUE(racecheck);
}

// A race hazard after racecheck: the race is the cause, and the wrong values follow it.
// A process whose racecheck log reports a hazard; memcheck finds nothing.
ProcessAnswer RacecheckFindsAHazard(const HarnessCall& call) {
  ProcessAnswer p;
  p.sanitizer_log = call.tool == "racecheck"
                        ? "========= Error: Race reported between Write access at tiled+0x10\n"
                          "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"
                        : "========= ERROR SUMMARY: 0 errors\n";
  return p;
}

// Wrong values from the default build's own runs (not the sanitizers' nor other thread orders').
CaseAnswer WrongInTheDefaultBuild(const HarnessCall& call, const std::string&) {
  CaseAnswer a;
  if (call.build == "default" && call.tool.empty() && call.order.empty())
    a.values = CaseAnswer::Values::kWrong;
  return a;
}

TEST_F(JudgeTest, GpuBackendRacecheckFindingIsADataRace) {
  harness_.on_process = RacecheckFindsAHazard;
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "data_race");
  EXPECT_TRUE(Has(v.message, "a race in shared memory")) << v.message;
}

TEST_F(JudgeTest, WrongValuesWithARaceBehindThemNameTheRaceFirst) {
  harness_.on_case = WrongInTheDefaultBuild;
  harness_.on_process = RacecheckFindsAHazard;
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "data_race");
  EXPECT_EQ(v.message.rfind("a race in shared memory", 0), 0u) << v.message;
  EXPECT_TRUE(Has(v.message, "What came out:\nwrong result in case")) << v.message;
}

// A racecheck that cannot run is no explanation of wrong values: they stay the student's failure,
// not a grader error.
TEST_F(JudgeTest, WrongValuesWhenRacecheckCannotRunStayWrongValues) {
  harness_.on_case = WrongInTheDefaultBuild;
  harness_.on_process = [](const HarnessCall&) { return ProcessAnswer{}; };  // no log
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_result");
  EXPECT_FALSE(Has(v.message, "compute-sanitizer")) << v.message;
}

// On the CPU backend, wrong values that also change with the thread order are put down to the race.
TEST_F(JudgeTest, WrongValuesThatChangeWithTheThreadOrderAreARace) {
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.build == "default")
      a.values = call.order == "reverse" ? CaseAnswer::Values::kUlpOff : CaseAnswer::Values::kWrong;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "thread_order");
  EXPECT_TRUE(Has(v.message, "What came out:")) << v.message;
}

// A crash in another thread order is its own finding, not a race.
TEST_F(JudgeTest, ACrashInAnotherThreadOrderIsACrash) {
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.order == "reverse") a.status = "";
    return a;
  };
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    p.done = call.order != "reverse" || call.mode == "--record";
    if (!p.done) p.signal = 11;
    return p;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kCrashed);
  EXPECT_EQ(v.cause, "crashed");
  EXPECT_EQ(v.message.rfind("with threads run in reverse order: ", 0), 0u) << v.message;
}

}  // namespace
}  // namespace labkit
