// The judge's race and sanitizer checks without processes (race_checks.cpp): memcheck and
// racecheck on the GPU backend, the thread orders and ThreadSanitizer on the CPU backend, each
// run's end read from its exit status, driven by a scripted harness (judge_test.h).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "exercise_checks.h"
#include "judge_test.h"

namespace labkit {
namespace {

using nlohmann::json;
using namespace testing_harness;

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
    // The error is sticky: the cases after the second (the one drawn from the seed) allocate
    // nothing.
    if (id != "tiled_0" && id != "tiled_1") return a;
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
