// GradeQueryExercise: every status and cause of a query exercise's verdict.
#include "query_grader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpu_counters.h"
#include "scripted_harness_test_util.h"

namespace labkit {
namespace {

using nlohmann::json;

// GradeQueryExercise driven by a scripted harness (CompareQueryValue alone: query_value_test.cpp).
const QueryValueSpec kExact{"active_blocks", 0};

json Value(json student, json expected, json hints = json::array()) {
  return {{"student", student}, {"expected", expected}, {"hints", hints}};
}

// GradeQueryExercise driven by the scripted harness: each status and cause of a query's verdict.
class QueryJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("labkit_query_" + std::to_string(getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    spec_.id = "query_lab";
    ex_.id = "occupancy";
    ex_.kind = ExerciseKind::kQuery;
    ex_.function = "activeBlocks";
    ex_.params = {{{"block_side", 8}}, {{"block_side", 16}}};
    ex_.values = {kExact};
    spec_.exercises = {ex_};
    build_.ok = true;
    build_.executable = dir_ + "/harness";
    std::ofstream(build_.executable) << "harness";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ExerciseVerdict Grade() {
    GradeEnv env{harness_, manifest_, spec_, Backend::kCpu, 7, dir_ + "/work"};
    env.builds[Flavour::kDefault] = build_;
    return GradeQueryExercise(env, ex_);
  }

  std::string dir_;
  LabSpec spec_;
  Exercise ex_;
  Manifest manifest_;
  BuildOutcome build_;
  testing_harness::ScriptedHarness harness_;
};

// The script's answer: the kit's value for every call, and the student's as `student` says.
testing_harness::QueryAnswer Answer(const json& params, int student_at_16) {
  testing_harness::QueryAnswer a;
  const int expected = params.at("block_side") == 8 ? 32 : 8;
  a.values["active_blocks"] =
      Value(params.at("block_side") == 16 ? student_at_16 : expected, expected);
  return a;
}

TEST_F(QueryJudgeTest, RightValuesForEveryParameterSetPass) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 8);
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  EXPECT_EQ(v.cause, "");
  ASSERT_EQ(harness_.calls.size(), 1u) << "every parameter set in one process";
  EXPECT_EQ(harness_.calls[0].exercise, "occupancy");
}

TEST_F(QueryJudgeTest, AWrongValueFailsAndSaysWhere) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 9);
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_value");
  EXPECT_EQ(v.message, "active_blocks with block_side=16: expected 8, got 9.");
}

// The harness says which case it worked its expected values out for: the case asked passes, one
// the student's code changed in the harness's memory fails, whatever the values say.
TEST_F(QueryJudgeTest, ExpectedValuesWorkedOutForAnotherCaseFail) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    a.worked_out_for = {{"block_side", p.at("block_side")}, {"not_a_parameter", 3}};
    return a;
  };
  EXPECT_EQ(Grade().status, GradeStatus::kPassed);
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    a.worked_out_for = {{"block_side", p.at("block_side") == 16 ? 0 : 8}};
    return a;
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "report_tampered");
  EXPECT_EQ(v.message,
            "the grader worked the expected values of the call (with block_side=16) out for "
            "block_side=0 where the case asked block_side=16: something in the submission changed "
            "the grader's own memory while your function ran.");
}

// Cases drawn from the seed under a formula of labgrade's (drawn_expected.h) are held to
// labgrade's own expected values: a response line whose expected value agrees with a wrong
// answer (written by the student's code, which runs in the harness's process) fails there,
// lab.yaml's own cases keep the harness's values, and a formula that lacks what it needs is the
// grader's fault, not the student's.
TEST_F(QueryJudgeTest, DrawnCasesAreHeldToTheGradersOwnExpectedValues) {
  ex_.params = {{}};
  ex_.values = {{"width", 0}};
  ex_.drawn = QueryDrawn{2, {{"max_threads_per_block", {256, 768, 256}}}};
  ex_.drawn->expected_by = DrawnExpected::kLargestSquareBlock;
  const auto answer = [](bool right) {
    return [right](const testing_harness::HarnessCall&, const json& p) {
      testing_harness::QueryAnswer a;
      int width = 32;
      if (p.contains("max_threads_per_block") && right)
        for (width = 0; (width + 1) * (width + 1) <= p.at("max_threads_per_block"); ++width) {
        }
      a.values["width"] = Value(width, width);  // the line claims the answer it gives is right
      return a;
    };
  };
  harness_.on_query = answer(true);
  const ExerciseVerdict right = Grade();
  EXPECT_EQ(right.status, GradeStatus::kPassed) << right.message;
  harness_.on_query = answer(false);
  const ExerciseVerdict forged = Grade();
  EXPECT_EQ(forged.status, GradeStatus::kFailed);
  EXPECT_EQ(forged.cause, "wrong_value");
  EXPECT_NE(forged.message.find("width with max_threads_per_block="), std::string::npos)
      << forged.message;
  EXPECT_NE(forged.message.find(", got 32."), std::string::npos) << forged.message;
  ex_.drawn->expected_by = DrawnExpected::kOccupancyFormula;  // needs parameters these lack
  const ExerciseVerdict unworkable = Grade();
  EXPECT_EQ(unworkable.status, GradeStatus::kGraderError);
  EXPECT_EQ(unworkable.cause, "drawn_expected_failed");
}

// The harness's "error" line comes from the process the student's code runs in, which can write one
// (or make the kit's own check fail) to turn a wrong answer into "not graded": a wrong case
// reported before the end settles the verdict; with every reported case right, it is the kit's.
TEST_F(QueryJudgeTest, AHarnessErrorDoesNotHideAWrongCaseReportedBeforeIt) {
  harness_.on_process = [](const testing_harness::HarnessCall&) {
    testing_harness::ProcessAnswer p;
    p.error_detail = "cannot open cases.jsonl";
    p.done = false;
    return p;
  };
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 9);
  };
  const ExerciseVerdict wrong = Grade();
  EXPECT_EQ(wrong.status, GradeStatus::kFailed);
  EXPECT_EQ(wrong.cause, "wrong_value");
  EXPECT_EQ(wrong.message, "active_blocks with block_side=16: expected 8, got 9.");
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 8);
  };
  const ExerciseVerdict right = Grade();
  EXPECT_EQ(right.status, GradeStatus::kGraderError);
  EXPECT_EQ(right.cause, "harness_failed");
  EXPECT_EQ(right.message, "the grader's harness failed on its own: cannot open cases.jsonl");
  // A case left unreported beside the error: the kit's (the right ones before it judged first).
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    if (p.at("block_side") == 16) a.status = "";
    return a;
  };
  EXPECT_EQ(Grade().cause, "harness_failed");
}

// Whose an error with every reported case right is: the same cases against the lab's starter tell.
// Clean there, and failing again with the submission: the submission's (r30: the case file
// refused through the import table after a right answer). Failing with the starter too, or not
// again: the kit's, not graded.
TEST_F(QueryJudgeTest, AHarnessErrorIsTheKitsOnlyWhereTheStarterMeetsItToo) {
  testing_harness::ScriptedBuilder builder(harness_, manifest_, spec_);
  builder.executable = "starter";
  const auto grade = [&] {
    GradeEnv env{harness_, manifest_, spec_, Backend::kCpu, 7, dir_ + "/work"};
    env.builds[Flavour::kDefault] = build_;
    env.builder = &builder;
    return GradeQueryExercise(env, ex_);
  };
  int submission_runs = 0;
  bool starter_fails = false, fails_again = true;
  harness_.on_process = [&](const testing_harness::HarnessCall& call) {
    testing_harness::ProcessAnswer p;
    const bool submission = call.build != "starter";
    submission_runs += submission;
    if (submission ? (submission_runs == 1 || fails_again) : starter_fails) {
      p.error_detail = "cannot open cases.jsonl";
      p.done = false;
    }
    return p;
  };
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    if (p.at("block_side") == 16) a.status = "";  // the drawn case the harness never reached
    return a;
  };
  const ExerciseVerdict submissions = grade();
  EXPECT_EQ(submissions.status, GradeStatus::kFailed);
  EXPECT_EQ(submissions.cause, "harness_stopped");
  EXPECT_EQ(submissions.message.rfind("the grader's harness stopped with your code, twice "
                                      "(\"cannot open cases.jsonl\"), and not with the lab's "
                                      "starter",
                                      0),
            0u)
      << submissions.message;
  ASSERT_EQ(builder.asked.size(), 1u);  // the starter, built once
  starter_fails = true;
  submission_runs = 0;
  EXPECT_EQ(grade().cause, "harness_failed");
  starter_fails = false;
  fails_again = false;
  submission_runs = 0;
  EXPECT_EQ(grade().cause, "harness_failed");
}

// A call the exercise refuses (lab 04's occupancy API, where the answer is worked out by hand):
// the harness's words first, then the case, whatever values came with it.
TEST_F(QueryJudgeTest, ARefusedCallFailsWithTheHarnessWords) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    a.status = "refused_call";
    a.detail =
        "activeBlocks called cudaOccupancyMaxActiveBlocksPerMultiprocessor, which this "
        "exercise does not allow";
    return a;
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "refused_call");
  EXPECT_EQ(v.message,
            "activeBlocks called cudaOccupancyMaxActiveBlocksPerMultiprocessor, which this "
            "exercise does not allow (with block_side=8).");
}

TEST_F(QueryJudgeTest, ACudaErrorFails) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json&) {
    testing_harness::QueryAnswer a;
    a.status = "cuda_error";
    a.error = "cudaErrorInvalidValue";
    a.detail = "invalid argument";
    return a;
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "cuda_error");
  EXPECT_EQ(v.message, "CUDA error cudaErrorInvalidValue (with block_side=8): invalid argument.");
}

TEST_F(QueryJudgeTest, ACallNeverAnsweredIsACrashOrATimeout) {
  harness_.on_query = [](const testing_harness::HarnessCall&, const json&) {
    testing_harness::QueryAnswer a;
    a.status = "";
    return a;
  };
  harness_.on_process = [](const testing_harness::HarnessCall&) {
    testing_harness::ProcessAnswer p;
    p.done = false;
    p.signal = 11;
    return p;
  };
  ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kCrashed);
  EXPECT_EQ(v.cause, "crashed");
  EXPECT_EQ(v.message.rfind("while calling activeBlocks (with block_side=8), ", 0), 0u)
      << v.message;

  harness_.on_process = [](const testing_harness::HarnessCall&) {
    testing_harness::ProcessAnswer p;
    p.done = false;
    p.timed_out = true;
    return p;
  };
  v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kTimeout);
  EXPECT_EQ(v.cause, "timeout");
}

// A host function of the student's (lab.yaml `recorded`) runs in a record process and its device
// work is replayed in another, which answers; a record run that died leaves its cases unrecorded,
// reported with how it ended.
TEST_F(QueryJudgeTest, AHostFunctionIsRecordedAndReplayedInTwoProcesses) {
  ex_.recorded = true;
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 8);
  };
  ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
  ASSERT_EQ(harness_.calls.size(), 2u);
  EXPECT_EQ(harness_.calls[0].mode, "--record");
  EXPECT_EQ(harness_.calls[1].mode, "--replay");

  harness_.on_process = [](const testing_harness::HarnessCall& call) {
    testing_harness::ProcessAnswer p;
    if (call.mode == "--record") {
      p.records = false;
      p.done = false;
      p.signal = 11;
    }
    return p;
  };
  v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kCrashed);
  EXPECT_EQ(v.cause, "crashed");
  EXPECT_EQ(v.message.rfind("while your function ran for activeBlocks (with block_side=8), ", 0),
            0u)
      << v.message;
}

TEST_F(QueryJudgeTest, AHarnessThatCannotStartIsTheGradersFault) {
  harness_.on_process = [](const testing_harness::HarnessCall&) {
    testing_harness::ProcessAnswer p;
    p.starts = false;
    return p;
  };
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kGraderError);
  EXPECT_EQ(v.cause, "harness_not_started");
}

// On a GPU the technique is counted under Nsight Compute, in a second process. One that dies there
// with no table of counts, after the same call ran right moments before, is not the student's to
// lose (ncu failing under a batch's load ends with the program's status): not graded.
TEST_F(QueryJudgeTest, ACountedRunThatDiesUnderNsightComputeIsNotGraded) {
  ex_.measured = QueryMeasured{{{"block_side", 8}}, "block_side", 3.0};
  spec_.exercises = {ex_};
  harness_.on_query = [this](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    if (harness_.calls.size() > 1) a.status = "";  // the counted call: no line
    return a;
  };
  harness_.on_process = [this](const testing_harness::HarnessCall&) {
    testing_harness::ProcessAnswer p;
    if (harness_.calls.size() > 1) {
      p.done = false;
      p.exit_code = 9;
    }
    return p;
  };
  GradeEnv env{harness_, manifest_, spec_, Backend::kGpu, 7, dir_ + "/work"};
  env.builds[Flavour::kDefault] = build_;
  const ExerciseVerdict v = GradeQueryExercise(env, ex_);
  ASSERT_EQ(harness_.calls.size(), 2u);
  EXPECT_EQ(v.status, GradeStatus::kGraderError) << v.message;
  EXPECT_EQ(v.cause, "counting_failed");
  const std::string counted = ParamText(CountedParamsOf(env, ex_));
  EXPECT_NE(counted, "block_side=8");  // drawn above lab.yaml's value
  EXPECT_NE(v.message.find("stopped with no counts (in the counted case, " + counted +
                           "): exit status 9"),
            std::string::npos)
      << v.message;
}

// A counted run that lists its launches but no counts: where the machine cannot count for anyone
// (no permission), the pass stands, said not to be final; where it counts for others, the run's
// own failure (the counters busy under a batch) is not graded, never a pass on trust. The claim
// comes from the student's own program here, so labgrade checks the driver's setting itself.
TEST_F(QueryJudgeTest, UncountedLaunchesPassOnlyWhereThisMachineCannotCount) {
  ex_.measured = QueryMeasured{{{"block_side", 8}}, "block_side", 3.0};
  spec_.exercises = {ex_};
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    a.launches = json::array({{{"kernel", "_Z6kernelPf"},
                               {"grid", {4, 1, 1}},
                               {"block", {64, 1, 1}},
                               {"dynamic_shared_bytes", 0}}});
    return a;
  };
  // The driver's setting labgrade reads: every user may count, or it cannot be read.
  const std::string everyone = dir_ + "/nvidia_params";
  std::ofstream(everyone) << "RmProfilingAdminOnly: 0\n";
  for (const bool machine : {true, false}) {
    harness_.calls.clear();
    harness_.on_process = [&](const testing_harness::HarnessCall&) {
      testing_harness::ProcessAnswer p;
      p.counter_table = std::string(gpu_metric::kErrorMark) +
                        (machine ? gpu_metric::kCannotCountHere : gpu_metric::kCountingFailed) +
                        ": starting the profiler: the counters are busy\n";
      return p;
    };
    GradeEnv env{harness_, manifest_, spec_, Backend::kGpu, 7, dir_ + "/work"};
    env.builds[Flavour::kDefault] = build_;
    env.nvidia_params = dir_ + "/no_such_file";
    const ExerciseVerdict v = GradeQueryExercise(env, ex_);
    if (machine) {
      // The student's program wrote that table: where the driver lets everyone count, its word
      // that this machine cannot is no reason to leave the rule unchecked.
      harness_.calls.clear();
      env.nvidia_params = everyone;
      const ExerciseVerdict claimed = GradeQueryExercise(env, ex_);
      EXPECT_EQ(claimed.status, GradeStatus::kGraderError) << claimed.message;
      EXPECT_EQ(claimed.cause, "counting_failed");
    }
    // A busy run is tried again (harness_runner.cpp); a machine that cannot count is not.
    ASSERT_EQ(harness_.calls.size(), machine ? 2u : 1u + kCountingAttempts);
    if (machine) {
      EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
      EXPECT_TRUE(v.unchecked);
    } else {
      EXPECT_EQ(v.status, GradeStatus::kGraderError) << v.message;
      EXPECT_EQ(v.cause, "counting_failed");
      EXPECT_NE(v.message.find("the counters are busy"), std::string::npos) << v.message;
    }
  }
}

// Host code that sees it is being counted (CUDA_INJECTION64_PATH) and launches nothing there leaves
// ncu no table; with no launch listed either, that is the student's doing, not an uncounted pass.
TEST_F(QueryJudgeTest, ACountedRunThatLaunchesNothingFailsTheTechnique) {
  ex_.measured = QueryMeasured{{{"block_side", 8}}, "block_side", 3.0};
  spec_.exercises = {ex_};
  harness_.on_query = [](const testing_harness::HarnessCall&, const json& p) {
    return Answer(p, 8);
  };
  GradeEnv env{harness_, manifest_, spec_, Backend::kGpu, 7, dir_ + "/work"};
  env.builds[Flavour::kDefault] = build_;
  const ExerciseVerdict v = GradeQueryExercise(env, ex_);
  ASSERT_EQ(harness_.calls.size(), 2u);
  EXPECT_EQ(v.status, GradeStatus::kFailed) << v.message;
  EXPECT_EQ(v.cause, kTechniqueCause);
  EXPECT_NE(v.message.find("never launched in the counted case"), std::string::npos) << v.message;
  EXPECT_FALSE(v.unchecked);
}

// The counted call's values are graded like lab.yaml's: a kernel wrong only above the published
// sizes fails there, named by its parameters.
TEST_F(QueryJudgeTest, TheCountedCallIsGradedWithTheOthers) {
  ex_.measured = QueryMeasured{{{"block_side", 8}}, "block_side", 3.0};
  spec_.exercises = {ex_};
  GradeEnv env{harness_, manifest_, spec_, Backend::kCpu, 7, dir_ + "/work"};
  env.builds[Flavour::kDefault] = build_;
  const ParamSet counted = CountedParamsOf(env, ex_);
  harness_.on_query = [&](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    if (p.at("block_side") == counted.at("block_side")) a.values["active_blocks"] = Value(99, 8);
    return a;
  };
  const ExerciseVerdict v = GradeQueryExercise(env, ex_);
  ASSERT_EQ(harness_.calls.size(), 1u) << "failed before the counting run";
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, "wrong_value");
  EXPECT_EQ(v.message, "active_blocks with " + ParamText(counted) + ": expected 8, got 99.");
}

// The counted run's values are checked too: right values in the graded run and wrong ones where
// the kernel is counted fail the technique, said to be the counting run's.
TEST_F(QueryJudgeTest, WrongValuesInTheCountedRunFailTheTechnique) {
  ex_.measured = QueryMeasured{{{"block_side", 8}}, "block_side", 3.0};
  spec_.exercises = {ex_};
  harness_.on_query = [this](const testing_harness::HarnessCall&, const json& p) {
    testing_harness::QueryAnswer a = Answer(p, 8);
    if (harness_.calls.size() > 1) a.values["active_blocks"] = Value(99, 8);  // the counted run
    return a;
  };
  GradeEnv env{harness_, manifest_, spec_, Backend::kGpu, 7, dir_ + "/work"};
  env.builds[Flavour::kDefault] = build_;
  const ExerciseVerdict v = GradeQueryExercise(env, ex_);
  ASSERT_EQ(harness_.calls.size(), 2u);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, kTechniqueCause);
  EXPECT_NE(v.message.find("in the build in which the grader counts memory accesses: "
                           "active_blocks with " +
                           ParamText(CountedParamsOf(env, ex_)) + ": expected 8, got 99."),
            std::string::npos)
      << v.message;
}

TEST_F(QueryJudgeTest, AFailedBuildIsACompileError) {
  build_.ok = false;
  build_.stage = "link";
  build_.message = "undefined reference to activeBlocks";
  const ExerciseVerdict v = Grade();
  EXPECT_EQ(v.status, GradeStatus::kCompileError);
  EXPECT_EQ(v.cause, "link");
  EXPECT_TRUE(harness_.calls.empty());
}

}  // namespace
}  // namespace labkit
