// The judge without processes: GradeExercises driven by a scripted harness
// (scripted_harness_test_util.h), so that each status and cause a verdict can take is checked in
// milliseconds.
#include "exercise_grader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "build_plan.h"
#include "exercise_checks.h"
#include "judge_test.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace testing_harness;

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

// Any run's device line that says kernels reach host memory counts, not only the first one's: a
// student's own program writes its line as it likes, the kit's replay program does not.
TEST_F(JudgeTest, AnyDeviceLineThatSaysKernelsReachHostMemoryCounts) {
  Grade(Backend::kGpu);
  EXPECT_FALSE(kernels_reach_host_memory_);
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    p.pageable_memory_access = call.build == "nofma";
    return p;
  };
  Grade(Backend::kGpu);
  EXPECT_TRUE(kernels_reach_host_memory_);
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

// Where the nofma build is the default build itself (build_plan.h: no FMA instruction in it), its
// cases are not run again: the default build's values, right within the forward-error bound but
// an ulp off the sequential sum, fail the exact rule as the nofma build's would have.
TEST_F(JudgeTest, ANofmaBuildThatIsTheDefaultOneJudgesTheDefaultRunExactly) {
  builds_[Flavour::kNoFma] = NoFmaFromDefault(builds_.at(Flavour::kDefault));
  harness_.on_case = [](const HarnessCall&, const std::string& id) {
    CaseAnswer a;
    if (id == "tiled_0") a.values = CaseAnswer::Values::kUlpOff;
    return a;
  };
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_result");
  EXPECT_EQ(v.flavour, Flavour::kNoFma);
  EXPECT_EQ(v.builds_run, (std::vector<Flavour>{Flavour::kDefault, Flavour::kNoFma}));
  EXPECT_TRUE(Has(v.message, "fused multiply-add off")) << v.message;

  // Right values pass, and every process ran the default build, none a build of its own.
  harness_.calls.clear();
  harness_.on_case = [](const HarnessCall&, const std::string&) { return CaseAnswer{}; };
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  ASSERT_FALSE(harness_.calls.empty());
  for (const HarnessCall& call : harness_.calls) EXPECT_EQ(call.build, "default");
  // One replay in the program's own order (the default build's; the thread-order checks run
  // others), none for the nofma build.
  EXPECT_EQ(std::count_if(harness_.calls.begin(), harness_.calls.end(),
                          [](const HarnessCall& c) { return c.mode == "--replay" && c.order.empty(); }),
            1);
}

// technique.measured's counted case: where the nofma build is the default one, the counted values
// are that build's too, and an ulp off the sequential sum there fails as in any other case (a
// kernel cannot sum in another order at the counted shape alone); with a nofma build of its own,
// the counted run is the default build's only, checked within the forward-error bound.
TEST_F(JudgeTest, TheCountedCaseMeetsTheNofmaRuleWhereTheDefaultBuildIsTheNofmaOne) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (!call.counting) return a;
    a.values = CaseAnswer::Values::kUlpOff;
    a.launches[0]["accesses"] = {{"global_load_bytes", 1LL << 40},
                                 {"global_store_bytes", 1LL << 40},
                                 {"shared_loads", 1LL << 20}};
    return a;
  };
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;

  builds_[Flavour::kNoFma] = NoFmaFromDefault(builds_.at(Flavour::kDefault));
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message, "in the run in which the grader counts memory accesses")) << v.message;
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

// A launch check fails in words that fit any lab, and the lab's own hint (lab.yaml
// technique.hints) follows the check it names; a check with no hint keeps the grader's words.
TEST_F(JudgeTest, ALabsHintFollowsTheLaunchCheckItNames) {
  Technique t;
  t.single_block = true;
  t.dynamic_shared_bytes_per_thread = 8;
  t.hints = {{"single_block", "Launch one block of Width x Width threads"}};
  spec_.exercises[0].technique = t;
  json grid = {2, 1, 1};
  harness_.on_case = [&grid](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.launches = json::array({{{"kernel", "_Z5tiledPKfS0_Pfiii"},
                               {"grid", grid},
                               {"block", {16, 16, 1}},
                               {"dynamic_shared_bytes", 0}}});
    return a;
  };
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message,
                  "tiled was launched with a grid of 2 x 1 x 1 blocks; this exercise launches "
                  "exactly one block. Launch one block of Width x Width threads"))
      << v.message;

  grid = {1, 1, 1};
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.cause, "technique");
  const std::string unhinted =
      "tiled was launched with blocks of 256 threads and 0 bytes of dynamic shared memory; this "
      "exercise launches them with exactly 2048 (8 bytes per thread of the block)";
  ASSERT_TRUE(Has(v.message, unhinted)) << v.message;
  EXPECT_EQ(v.message.substr(v.message.find(unhinted) + unhinted.size()).find("Width"),
            std::string::npos)
      << v.message;
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
// "not checked" and passed; a counting run of the default build says what the kernels did instead.
class EmulatedDeclarationsTest : public JudgeTest {
 protected:
  void SetUp() override {
    JudgeTest::SetUp();
    Technique t;
    t.uses_barrier = true;
    t.max_static_shared_bytes = 0;  // lab 04's dynamic tiles
    spec_.exercises[0].technique = t;
  }
  // The counting run's launches pass `barriers` barriers and reach `static_bytes` of fixed-size
  // __shared__ arrays; it is the default build's, as every other run.
  void Counts(long long barriers, long long static_bytes) {
    harness_.on_case = [=](const HarnessCall& call, const std::string&) {
      CaseAnswer a;
      if (!call.counting) return a;
      EXPECT_EQ(call.build, "default");
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

// Found by a red-team pass (2026-11-27): a do-nothing kernel that declares what lab 04 asks for
// (no fixed-size tiles, a barrier), launched beside one with fixed-size tiles doing the work,
// passed, as any one kernel passing was enough. What the exercise rules out now holds for every
// launched kernel; what it asks for, for one of them, so that a helper kernel that asks for
// nothing still passes beside the one that does.
TEST_F(EmulatedDeclarationsTest, AKernelBesideTheOneDoingTheWorkCannotStandInForIt) {
  auto launches = [this](long long work_static_bytes) {
    harness_.on_case = [=](const HarnessCall& call, const std::string&) {
      CaseAnswer a;
      if (!call.counting) return a;
      json helper = a.launches[0];
      helper["kernel"] = "_Z9companionPi";
      helper["accesses"] = {{"shared_loads", 1}, {"barriers", 1}, {"static_shared_bytes", 0}};
      a.launches[0]["accesses"] = {{"shared_loads", 64},
                                   {"barriers", work_static_bytes > 0 ? 0 : 8},
                                   {"static_shared_bytes", work_static_bytes}};
      a.launches.push_back(helper);
      return a;
    };
  };
  launches(2048);
  ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.cause, "technique");
  EXPECT_TRUE(Has(v.message,
                  "launched tiled(float const*, float const*, float*, int, int, int), and "
                  "tiled declares 2048 bytes of fixed-size"))
      << v.message;

  launches(0);  // the working kernel keeps to the rules and waits; the helper is no harm
  v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
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

}  // namespace
}  // namespace labkit
