// The technique check, driven by a scripted harness (judge_test.h): when a GPU run that could not
// count lets the technique rest on what the kernels declare, and when it is not graded; the threads
// a case's launches started against the elements of its C.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "exercise_grader.h"
#include "harness_protocol.h"
#include "judge_test.h"

namespace labkit {
namespace {

using namespace testing_harness;

// On a GPU, a counting run with no counts: where the machine cannot count for anyone (its driver
// keeps the counters to administrators, say) the technique is judged from declarations, said so;
// where it counts for others, this run's failure (counters busy under a batch's load, a kernel
// that upset the profiler) is not graded, never a pass on what the kernels declare.
TEST_F(JudgeTest, AGpuRunThatCouldNotCountPassesOnlyWhereNoRunHereCan) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  for (const bool machine : {true, false}) {
    harness_.on_process = [machine](const HarnessCall&) {
      ProcessAnswer p;
      p.counter_table = std::string(gpu_metric::kErrorMark) +
                        (machine ? gpu_metric::kCannotCountHere : gpu_metric::kCountingFailed) +
                        ": starting the profiler: the counters are busy\n";
      return p;
    };
    const ExerciseVerdict v = Grade(Backend::kGpu);
    if (machine) {
      EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
      EXPECT_TRUE(v.unchecked);  // declarations a decoy can make: not final
      EXPECT_TRUE(std::any_of(v.notes.begin(), v.notes.end(), [](const std::string& n) {
        return Has(n, "technique judged from what the kernels declare");
      }));
    } else {
      EXPECT_EQ(v.status, GradeStatus::kGraderError) << v.message;
      EXPECT_EQ(v.cause, "counting_failed");
      EXPECT_TRUE(Has(v.message, "the counters are busy")) << v.message;
    }
  }
}

// A counting run does the passed run's work and counts it (the emulator records every access, a
// GPU's profiler replays each counted kernel per pass): it gets four times the lab's limit, which
// every other run keeps, on both backends.
TEST_F(JudgeTest, CountingRunsGetFourTimesTheLabsRunLimit) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  spec_.limits.run_seconds = 7;
  for (const Backend backend : {Backend::kCpu, Backend::kGpu}) {
    harness_.calls.clear();
    Grade(backend);  // the verdict is other tests' business: here, what each run was allowed
    int counting = 0;
    for (const HarnessCall& call : harness_.calls) {
      const bool sanitizer = !call.tool.empty() || call.thread_sanitizer;
      if (sanitizer) continue;  // the sanitizers' own limit (race_checks.cpp)
      counting += call.counting;
      EXPECT_EQ(call.timeout_seconds, call.counting ? 28 : 7)
          << "mode '" << call.mode << "', order '" << call.order << "'";
    }
    EXPECT_GT(counting, 0);
  }
}

// The CPU backend's counting run stops at a race on shared memory (emu's shared_races.h): the
// exercise fails as racecheck's finding does on a GPU, not on its technique, with the race first.
TEST_F(JudgeTest, ARaceTheCountingRunRecordsIsADataRace) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  harness_.on_case = [](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (!call.counting ||
        std::find(call.counted.begin(), call.counted.end(), id) == call.counted.end())
      return a;
    a.status = "";  // the emulator ended the run: no line for the case
    a.emu_diagnostic = {{"kind", "shared_race"},
                        {"kernel", "_Z5tiledPKfS0_Pfiii"},
                        {"block", {0, 0, 0}},
                        {"thread", {15, 0, 0}},
                        {"access", "write"},
                        {"other_thread", {0, 0, 0}},
                        {"other_access", "read"},
                        {"memory", "static"},
                        {"offset", 0},
                        {"bytes", 1024}};
    return a;
  };
  harness_.on_process = [](const HarnessCall& call) {
    ProcessAnswer p;
    if (call.counting) p.exit_code = 86, p.done = false;
    return p;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed) << v.message;
  EXPECT_EQ(v.cause, kDataRaceCause);
  EXPECT_EQ(v.message.rfind("a data race on shared memory in tiled", 0), 0u) << v.message;
  EXPECT_TRUE(Has(v.message, "with no __syncthreads() between them")) << v.message;
}

// Wrong values in a counting run with no counts are the kernel's failure, whatever the profiler
// did: a racy kernel that goes wrong there fails its technique, as it would with counts.
TEST_F(JudgeTest, WrongValuesInAnUncountedGpuRunFailTheTechnique) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.counting) a.values = CaseAnswer::Values::kWrong;
    return a;
  };
  harness_.on_process = [](const HarnessCall&) {
    ProcessAnswer p;
    p.counter_table = std::string(gpu_metric::kErrorMark) + gpu_metric::kCountingFailed +
                      ": starting the profiler: the counters are busy\n";
    return p;
  };
  const ExerciseVerdict v = Grade(Backend::kGpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed) << v.message;
  EXPECT_EQ(v.cause, kTechniqueCause);
  EXPECT_TRUE(Has(v.message, "in the run in which the grader counts memory accesses")) << v.message;
}

// The counting run replays the very cases of the run whose values passed, in their order, and
// counts the counted case alone: a kernel cannot tell the counted launch by the launches before it
// (a launch counter), and the counts judged are that case's, whatever the others' would say.
TEST_F(JudgeTest, TheCountingRunRepeatsTheCasesAndCountsOneOfThem) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  for (const bool counted_reads_shared : {true, false}) {
    harness_.calls.clear();
    harness_.on_case = [=](const HarnessCall& call, const std::string& id) {
      CaseAnswer a;
      if (!call.counting) return a;
      const bool counted =
          std::find(call.counted.begin(), call.counted.end(), id) != call.counted.end();
      a.launches[0]["accesses"] = {{"global_load_bytes", 1LL << 40},
                                   {"global_store_bytes", 1LL << 40},
                                   {"shared_loads", counted == counted_reads_shared ? 64 : 0}};
      return a;
    };
    const ExerciseVerdict v = Grade(Backend::kCpu);
    if (counted_reads_shared) {
      EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
    } else {
      EXPECT_EQ(v.status, GradeStatus::kFailed) << v.message;
      EXPECT_EQ(v.cause, kTechniqueCause);
    }
    const auto forward =
        std::find_if(harness_.calls.begin(), harness_.calls.end(), [](const HarnessCall& c) {
          return c.mode == "--replay" && c.order.empty() && !c.counting && c.build == "default";
        });
    const auto counting = std::find_if(harness_.calls.begin(), harness_.calls.end(),
                                       [](const HarnessCall& c) { return c.counting; });
    ASSERT_NE(forward, harness_.calls.end());
    ASSERT_NE(counting, harness_.calls.end());
    EXPECT_EQ(counting->cases, forward->cases);
    EXPECT_EQ(counting->counted.size(), 1u);
    EXPECT_TRUE(forward->counted.empty());
  }
}

// Two measured exercises that passed in the default build's combined run are counted in that
// sequence, each exercise's counted case marked: on the CPU backend in the combined run itself
// (the emulator counts the marked cases there), on a GPU in one more run of the same cases (after
// the -fmad=false build's own combined run), with the profiler.
TEST_F(JudgeTest, ExercisesThatPassedTogetherAreCountedInOneRunOfTheirSequence) {
  MeasureTechniqueAt({32, 32, 32}, /*reads_shared=*/true);
  Exercise second = spec_.exercises[0];
  second.id = "tiled_again";
  spec_.exercises.push_back(second);
  // On a GPU, the two counted launches' table (the profiler's, in Nsight Compute's CSV layout).
  std::string table = "\"ID\",\"Kernel Name\",\"Block Size\",\"Metric Name\",\"Metric Value\"\n";
  for (const char* id : {"0", "1"})
    for (const char* metric : {"global_ld", "global_st", "shared_ld", "shared_st"})
      table += std::string("\"") + id + "\",\"_Z5tiledPKfS0_Pfiii\",\"(16, 16, 1)\"," +
               "\"smsp__sass_inst_executed_op_" + metric + ".sum\",\"4,096\"\n";
  harness_.on_process = [&](const HarnessCall& call) {
    ProcessAnswer p;
    if (call.counting) p.counter_table = table;
    return p;
  };
  for (const Backend backend : {Backend::kCpu, Backend::kGpu}) {
    harness_.calls.clear();
    GradeEnv env{harness_, manifest_, spec_, backend, 7, dir_ + "/work_" + ToString(backend)};
    env.builds = builds_;
    GradeExercises(env, spec_.exercises);
    std::vector<HarnessCall> forward, counting;
    for (const HarnessCall& c : harness_.calls) {
      if (c.mode == "--replay" && c.order.empty() && c.tool.empty() && c.build == "default")
        forward.push_back(c);
      if (c.counting) counting.push_back(c);
    }
    ASSERT_EQ(counting.size(), 1u) << ToString(backend);
    EXPECT_EQ(counting[0].counted.size(), 2u);
    // The default build's replays: the combined run, and on a GPU the counting run after it.
    ASSERT_EQ(forward.size(), backend == Backend::kCpu ? 1u : 2u);
    EXPECT_EQ(counting[0].cases, forward.front().cases);
    EXPECT_EQ(forward.front().counting, backend == Backend::kCpu);
  }
}

// min_threads_per_element_of_c on the launch records of every case, on both backends (each
// fills grid and block): a grid with threads to spare passes, one thread for all of C fails,
// naming the first case, the counts and the lab's hint.
TEST_F(JudgeTest, TooFewThreadsForTheElementsOfCFailTheTechnique) {
  Technique t;
  t.min_threads_per_element_of_c = 1;
  t.hints = {{"min_threads_per_element_of_c", "One thread per element of C"}};
  spec_.exercises[0].technique = t;
  json block = {16, 16, 1};
  harness_.on_case = [&block](const HarnessCall&, const std::string&) {
    CaseAnswer a;
    a.launches = json::array({{{"kernel", "_Z5tiledPKfS0_Pfiii"},
                               {"grid", {2, 2, 1}},  // 1024 threads, more than any case's C
                               {"block", block},
                               {"dynamic_shared_bytes", 0}}});
    return a;
  };
  for (const Backend backend : {Backend::kCpu, Backend::kGpu}) {
    block = {16, 16, 1};
    ExerciseVerdict v = Grade(backend);
    EXPECT_EQ(v.status, GradeStatus::kPassed) << v.message;
    block = {1, 1, 1};  // 4 threads
    v = Grade(backend);
    EXPECT_EQ(v.status, GradeStatus::kFailed);
    EXPECT_EQ(v.cause, "technique");
    EXPECT_TRUE(Has(v.message,
                    "your launch started 4 threads for the 16 x 16 = 256 elements of C in case "
                    "16x16x16 (m x n x k); this exercise computes one element of C per thread, so "
                    "it starts at least 256 threads. One thread per element of C"))
        << v.message;
  }
}

}  // namespace
}  // namespace labkit
