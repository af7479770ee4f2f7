// GradeExercises' stages across exercises (exercise_stages.cpp) on a GPU: the default build's
// combined run also counts each measured exercise's counted case.
#include <gtest/gtest.h>

#include <algorithm>

#include "drawn_shapes.h"
#include "judge_test.h"

namespace labkit {
namespace testing_harness {
namespace {

class GpuStagesTest : public JudgeTest {
 protected:
  void SetUp() override {
    JudgeTest::SetUp();
    MeasuredTechnique rule;
    rule.shape = {32, 32, 32};
    rule.reads_shared = true;
    Technique t;
    t.measured = rule;
    spec_.exercises[0].technique = t;
    Exercise second = spec_.exercises[0];
    second.id = "tiled_again";
    spec_.exercises.push_back(second);
  }
  std::vector<ExerciseVerdict> GradeBoth() {
    GradeEnv env{harness_, manifest_, spec_, Backend::kGpu, 7, dir_ + "/work"};
    env.builds = builds_;
    counted_ids_.clear();
    for (const Exercise& ex : spec_.exercises)
      counted_ids_.push_back(CountedCase(env, ex, ex.id).id);
    return GradeExercises(env, spec_.exercises);
  }
  int CountingProcesses() const {
    return static_cast<int>(std::count_if(harness_.calls.begin(), harness_.calls.end(),
                                          [](const HarnessCall& c) { return c.gpu_counters; }));
  }
  std::vector<std::string> counted_ids_;
};

// One process replays both exercises' cases and counts their counted cases alone: no counting
// process of its own follows, and the counts it took decide the technique.
TEST_F(GpuStagesTest, TheDefaultBuildsCombinedRunCountsTheCountedCases) {
  std::vector<std::string> counted_seen;
  harness_.on_case = [&](const HarnessCall& call, const std::string& id) {
    if (call.counted) counted_seen.push_back(id);
    return CaseAnswer{};
  };
  std::vector<ExerciseVerdict> v = GradeBoth();
  ASSERT_EQ(v.size(), 2u);
  for (const ExerciseVerdict& verdict : v)
    EXPECT_EQ(verdict.status, GradeStatus::kPassed) << verdict.message;
  EXPECT_EQ(CountingProcesses(), 1);
  const auto counting = std::find_if(harness_.calls.begin(), harness_.calls.end(),
                                     [](const HarnessCall& c) { return c.gpu_counters; });
  ASSERT_NE(counting, harness_.calls.end());
  EXPECT_EQ(counting->build, "default");
  EXPECT_EQ(counting->mode, "--replay");
  // Exactly the two counted cases (group-prefixed in the combined run) had their launches counted.
  ASSERT_EQ(counted_seen.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    EXPECT_EQ(counted_seen[i], "g" + std::to_string(i) + "_" + counted_ids_[i]);

  // Counts that break the rule fail the technique, from that same run.
  harness_.calls.clear();
  harness_.on_case = [](const HarnessCall& call, const std::string&) {
    CaseAnswer a;
    if (call.counted) a.gpu_shared_loads = 0;
    return a;
  };
  v = GradeBoth();
  for (const ExerciseVerdict& verdict : v) {
    EXPECT_EQ(verdict.status, GradeStatus::kFailed);
    EXPECT_EQ(verdict.cause, "technique") << verdict.message;
  }
  EXPECT_EQ(CountingProcesses(), 1);
}

// A combined run whose exercise failed there is not taken: that exercise runs alone, and its
// counted case is counted in a counting run of its own, as before.
TEST_F(GpuStagesTest, AnExerciseThatFailedInTheCombinedRunIsCountedOnItsOwn) {
  harness_.on_case = [](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    // The combined run (cases g0_..., g1_...) goes wrong for the second exercise only.
    if (call.gpu_counters && id.rfind("g1_", 0) == 0) a.values = CaseAnswer::Values::kWrong;
    return a;
  };
  const std::vector<ExerciseVerdict> v = GradeBoth();
  ASSERT_EQ(v.size(), 2u);
  for (const ExerciseVerdict& verdict : v)
    EXPECT_EQ(verdict.status, GradeStatus::kPassed) << verdict.message;
  EXPECT_EQ(CountingProcesses(), 2);
  EXPECT_EQ(harness_.calls.back().exercise, "tiled_again");
  EXPECT_TRUE(harness_.calls.back().gpu_counters);
}

}  // namespace
}  // namespace testing_harness
}  // namespace labkit
