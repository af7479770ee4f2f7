// The judge without processes: GradeExercises driven by a scripted harness (scripted_harness.h),
// so that each status and cause a verdict can take is checked in milliseconds.
#include "exercise_grader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "exercise_checks.h"
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
    env.thread_sanitizer = builds_.count(Flavour::kThreadSanitizer) > 0;
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

// Bits one ulp off when a block's threads run in reverse order: a race on the CPU backend.
CaseAnswer UlpOffInReverseOrder(const HarnessCall& call, const std::string&) {
  CaseAnswer a;
  if (call.order == "reverse") a.values = CaseAnswer::Values::kUlpOff;
  return a;
}

TEST_F(JudgeTest, BitsThatChangeWithTheThreadOrderAreARace) {
  harness_.on_case = UlpOffInReverseOrder;
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "thread_order");
  EXPECT_TRUE(Has(v.message, "the result depends on the order in which threads run")) << v.message;
  EXPECT_TRUE(Has(v.message, "--tsan names the two lines")) << v.message;
}

// An exception the student's function threw is the student's failure, on the case that threw it,
// never the grader's own ("not graded").
TEST_F(JudgeTest, AnExceptionFromTheStudentsFunctionFailsTheExercise) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "student_exception";
    a.detail = "your function threw an exception (vector::_M_range_check)";
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "student_exception");
  EXPECT_TRUE(Has(v.message, "in case 16x16x16 (m x n x k), your function threw")) << v.message;
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

// The counted case's shape comes from the seed: never lab.yaml's own (a function could launch
// tiles there alone), each side above it and at most half as much again, n even (tiles of 2 load
// exactly half of the rows kernel's), every side a multiple of TILE where the exercise's shapes all
// are; and other seeds give other shapes.
TEST_F(JudgeTest, TheCountedShapeIsDrawnFromTheSeedNearThePublishedOne) {
  MeasuredTechnique rule;
  rule.shape = {64, 64, 64};
  Technique t;
  t.measured = rule;
  Exercise& ex = spec_.exercises[0];
  ex.technique = t;
  std::set<std::string> seen;
  for (const bool multiples : {false, true}) {
    spec_.shapes = {{"cases", multiples ? std::vector<Shape>{{16, 32, 48}}
                                        : std::vector<Shape>{{16, 16, 16}, {17, 5, 9}}}};
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      GradeEnv env{harness_, manifest_, spec_, Backend::kCpu, seed, dir_ + "/work"};
      const Shape s = CountedShapeOf(env, ex);
      for (const int64_t side : {s.m, s.n, s.k}) {
        EXPECT_GT(side, 64);
        EXPECT_LE(side, 96);
        if (multiples) EXPECT_EQ(side % 16, 0) << side;
      }
      EXPECT_EQ(s.n % 2, 0) << s.n;
      seen.insert(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
      EXPECT_EQ(CountedCase(env, ex, "tiled").shape.m, s.m);
    }
  }
  EXPECT_GT(seen.size(), 20u);
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

// memcheck ends with its --error-exitcode when it found errors; `log` is what its log file holds
// by the end (the program can rewrite it).
std::function<ProcessAnswer(const HarnessCall&)> MemcheckFinds(std::string log) {
  return [log](const HarnessCall& call) {
    ProcessAnswer p;
    p.sanitizer_log = call.tool == "memcheck" ? log : "========= ERROR SUMMARY: 0 errors\n";
    if (call.tool == "memcheck") p.exit_code = kComputeSanitizerFoundExitCode;
    return p;
  };
}

TEST_F(JudgeTest, GpuBackendMemcheckFindingFails) {
  harness_.on_process = MemcheckFinds(
      "========= Invalid __global__ read of size 4 bytes\n========= ERROR SUMMARY: 1 error\n");
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "memcheck");
  EXPECT_TRUE(Has(v.message, "Invalid __global__ read")) << v.message;
}

// The log lies in the folder the program may write: emptied, or rewritten to say nothing was
// found, it leaves the finding (compute-sanitizer's exit status) as it was.
TEST_F(JudgeTest, GpuBackendMemcheckFindingStandsWhenItsLogIsEmptiedOrRewritten) {
  for (const std::string log : {"", "========= ERROR SUMMARY: 0 errors\n"}) {
    harness_.on_process = MemcheckFinds(log);
    const ExerciseVerdict v = Grade(Backend::kGpu);
    EXPECT_EQ(v.status, GradeStatus::kFailed) << log;
    EXPECT_EQ(v.cause, "memcheck");
    EXPECT_TRUE(Has(v.message, "its exit status says so")) << v.message;
  }
}

// A log that claims errors, with compute-sanitizer's status 0, is not compute-sanitizer's.
TEST_F(JudgeTest, GpuBackendALogAloneFindsNothing) {
  harness_.on_process = [](const HarnessCall&) {
    ProcessAnswer p;
    p.sanitizer_log =
        "========= Invalid __global__ read of size 4 bytes\n"
        "========= ERROR SUMMARY: 1 error\n";
    return p;
  };
  EXPECT_EQ(Grade(Backend::kGpu).status, GradeStatus::kPassed);
}

// compute-sanitizer that could not start the program: its own status, no line of the harness's.
ProcessAnswer SanitizerCannotStartTheProgram(const HarnessCall& call) {
  ProcessAnswer p;
  if (call.tool.empty()) return p;
  p.exit_code = 1;
  p.device_line = p.done = false;
  p.output = "========= Error: No attachable process found.\n";
  return p;
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
  harness_.on_process = MemcheckFinds(
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
  harness_.on_process = SanitizerCannotStartTheProgram;
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (!call.tool.empty()) a.status = "";  // never got to a case
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "sanitizer_unavailable");
  EXPECT_TRUE(Has(v.message, "compute-sanitizer could not run here")) << v.message;
}

// The program ending the run under the tool itself (exit(0) before its end, a signal) escapes
// the finding's status, so it clears nothing: not graded, never a pass.
TEST_F(JudgeTest, GpuBackendARunUnderTheSanitizerThatEndsEarlyIsNotAPass) {
  for (int signal : {0, 6}) {
    harness_.on_process = [signal](const HarnessCall& call) {
      ProcessAnswer p;
      p.sanitizer_log = "========= ERROR SUMMARY: 0 errors\n";
      if (call.tool == "memcheck") {
        p.done = false;
        p.signal = signal;
      }
      return p;
    };
    const ExerciseVerdict v = Grade(Backend::kGpu);
    EXPECT_EQ(v.status, GradeStatus::kGraderError) << signal;
    EXPECT_EQ(v.cause, "sanitizer_incomplete");
    EXPECT_TRUE(Has(v.message, "the run under compute-sanitizer memcheck did not finish"))
        << v.message;
  }
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
  if (call.tool == "racecheck") p.exit_code = kComputeSanitizerFoundExitCode;
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
  harness_.on_process = SanitizerCannotStartTheProgram;
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_result");
  EXPECT_FALSE(Has(v.message, "compute-sanitizer")) << v.message;
}

// --tsan: ThreadSanitizer ends the process at its first report with the status HarnessCommand
// gives it; its log names the lines. A report at matmul.cu lines 6 and 8:
constexpr const char* kTsanReport = R"(WARNING: ThreadSanitizer: data race (pid=10334)
  Write of size 4 at 0x7f674431d904 by thread T2:
    #0 tiled_kernel(float const*, float const*, float*, int, int, int) /tmp/sub/matmul.cu:6 (harness+0x41a580)

  Previous read of size 4 at 0x7f674431d904 by thread T1:
    #0 tiled_kernel(float const*, float const*, float*, int, int, int) /tmp/sub/matmul.cu:8 (harness+0x41a5ed)

SUMMARY: ThreadSanitizer: data race /tmp/sub/matmul.cu:6 in tiled_kernel
)";

// How the TSan build's run ends (`end`), and what its log holds by then (`log`).
std::function<ProcessAnswer(const HarnessCall&)> UnderTsan(ProcessAnswer end) {
  return [end](const HarnessCall& call) { return call.thread_sanitizer ? end : ProcessAnswer{}; };
}

ProcessAnswer TsanFound(std::string log) {
  ProcessAnswer p;
  p.exit_code = kThreadSanitizerFoundExitCode;
  p.done = false;
  p.sanitizer_log = std::move(log);
  return p;
}

TEST_F(JudgeTest, TsanFindingFailsWithTheRacingLines) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  harness_.on_process = UnderTsan(TsanFound(kTsanReport));
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "data_race");
  EXPECT_TRUE(Has(v.message, "ThreadSanitizer found 1 data race")) << v.message;
  EXPECT_TRUE(std::any_of(harness_.calls.begin(), harness_.calls.end(),
                          [](const HarnessCall& c) { return c.build == "tsan"; }));
}

TEST_F(JudgeTest, TsanCleanRunPasses) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_TRUE(v.notes.empty());
  EXPECT_TRUE(std::any_of(harness_.calls.begin(), harness_.calls.end(),
                          [](const HarnessCall& c) { return c.thread_sanitizer; }));
}

// TSan's status with its report gone (the log lies where the program can write) is no pass; nor
// a zero, as TSan also ends with that status when it cannot run here.
TEST_F(JudgeTest, TsanFindingWithItsReportGoneIsNotAPass) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  harness_.on_process = UnderTsan(TsanFound(""));
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "sanitizer_unreadable");
}

// A log with a race in it, from a run TSan let end cleanly, was not written by TSan.
TEST_F(JudgeTest, TsanLogAloneFindsNothing) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  ProcessAnswer clean;
  clean.sanitizer_log = kTsanReport;
  harness_.on_process = UnderTsan(clean);
  EXPECT_EQ(Grade(Backend::kCpu).status, GradeStatus::kPassed);
}

// The program leaving under TSan before the harness's end (exit(0) from a static initialiser,
// the done line written by hand, a signal) escapes TSan's status: it clears nothing.
TEST_F(JudgeTest, TsanRunThatEndsEarlyIsNotAPass) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  ProcessAnswer exited;
  exited.done = false;
  ProcessAnswer aborted;
  aborted.signal = 6;
  for (const ProcessAnswer& end : {exited, aborted}) {
    harness_.on_process = UnderTsan(end);
    const ExerciseVerdict v = Grade(Backend::kCpu);
    EXPECT_EQ(v.status, GradeStatus::kGraderError);
    EXPECT_EQ(v.cause, "sanitizer_incomplete");
    EXPECT_TRUE(Has(v.message, "the run under ThreadSanitizer did not finish")) << v.message;
  }
  // "done" and status 0, but the cases never reported: not the harness's end either.
  harness_.on_process = UnderTsan(ProcessAnswer{});
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.thread_sanitizer) a.status = "";
    return a;
  };
  EXPECT_EQ(Grade(Backend::kCpu).cause, "sanitizer_incomplete");
}

// The TSan build's record run leaving before its first case (a static initialiser that calls
// exit(0) under __SANITIZE_THREAD__): no replay starts, which is the program's doing, not a check
// the grader could not start. (A test of its own: recordings are kept per program.)
TEST_F(JudgeTest, TsanBuildThatLeavesBeforeItsRecordIsNotAPass) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    if (call.build == "tsan" && call.mode == "--record") p.done = p.records = false;
    return p;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "sanitizer_incomplete");
  EXPECT_TRUE(Has(v.message, "did not finish (exit status 0)")) << v.message;
}

// A result that changes with the thread order is the student's failure whatever TSan's run did.
TEST_F(JudgeTest, TsanRunThatCannotBeJudgedLeavesTheThreadOrderFinding) {
  builds_[Flavour::kThreadSanitizer] = ScriptedBuild(dir_ + "/tsan");
  harness_.on_process = UnderTsan(TsanFound(""));
  harness_.on_case = UlpOffInReverseOrder;
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "thread_order");
}

// The device-memory budget's refusal is said after a failure as the harness reported it on the
// case line; a refusal the program printed itself is not.
TEST_F(JudgeTest, AMemoryRefusalIsSaidFromTheCaseLineNotFromWhatWasPrinted) {
  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorMemoryAllocation";
    a.memory_refused = {{"call", "cudaMalloc"},
                        {"bytes", 1LL << 30},
                        {"in_use_bytes", 1536LL << 20},
                        {"limit_bytes", 2048LL << 20}};
    return a;
  };
  ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_TRUE(Has(v.message,
                  "\nlabkit: cudaMalloc of 1073741824 bytes refused: this program already holds "
                  "1536 MiB of device memory and may hold 2048 MiB"))
      << v.message;

  harness_.on_case = [](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorMemoryAllocation";
    return a;
  };
  harness_.on_process = [](const HarnessCall&) {
    ProcessAnswer p;
    p.output = "[labkit: cudaMalloc of 8 bytes refused: the grader is out of memory]\n";
    return p;
  };
  v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_FALSE(Has(v.message, "refused")) << v.message;
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
