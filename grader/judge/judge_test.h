// The judge's unit tests' fixture (exercise_grader_test.cpp, race_checks_test.cpp): one matmul
// exercise graded by GradeExercises with a scripted harness (scripted_harness_test_util.h), no
// process.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exercise_grader.h"
#include "scripted_harness_test_util.h"

namespace labkit {
namespace testing_harness {

// One matmul exercise (a kernel, so replayed) on two small shapes, graded with a scripted harness.
class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        std::filesystem::temp_directory_path() / ("labkit_judge_" + std::to_string(getpid()) + "_" +
                                                  info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    spec_ = OneKernelLab({{16, 16, 16}, {17, 5, 9}});
    for (Flavour f : {Flavour::kDefault, Flavour::kNoFma})
      builds_[f] = ScriptedBuild(dir_ + "/" + ToString(f));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ExerciseVerdict Grade(Backend backend) {
    GradeEnv env{harness_, manifest_, spec_, backend, 7, dir_ + "/work"};
    env.builds = builds_;
    env.thread_sanitizer = builds_.count(Flavour::kThreadSanitizer) > 0;
    const std::vector<ExerciseVerdict> verdicts = GradeExercises(env, spec_.exercises);
    kernels_reach_host_memory_ = env.kernels_reach_host_memory;
    EXPECT_EQ(verdicts.size(), 1u);
    return verdicts.at(0);
  }

  // The exercise judged by `technique.measured` on counts at `shape`, its rule's `reads_shared` as
  // given (lab_spec.h; nullopt: not asked).
  Exercise& MeasureTechniqueAt(const Shape& shape, std::optional<bool> reads_shared) {
    MeasuredTechnique rule;
    rule.shape = shape;
    rule.reads_shared = reads_shared;
    Technique t;
    t.measured = rule;
    spec_.exercises[0].technique = t;
    return spec_.exercises[0];
  }

  std::string dir_;
  LabSpec spec_;
  Manifest manifest_;
  std::map<Flavour, BuildOutcome> builds_;
  ScriptedHarness harness_;
  bool kernels_reach_host_memory_ = false;  // the last Grade's GradeEnv said so
};

inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Bits one ulp off when a block's threads run in reverse order: a race on the CPU backend.
inline CaseAnswer UlpOffInReverseOrder(const HarnessCall& call, const std::string&) {
  CaseAnswer a;
  if (call.order == "reverse") a.values = CaseAnswer::Values::kUlpOff;
  return a;
}

}  // namespace testing_harness
}  // namespace labkit
