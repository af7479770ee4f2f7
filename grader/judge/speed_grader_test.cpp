#include "speed_grader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "manifest.h"
#include "scripted_harness_test_util.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// Every compile of the kit's reference solution fails, and so does the builder's check of the
// compiler that follows a failed compile (submission_build.h CompilerFault); nothing else may run.
class ReferenceWontBuild : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override {
    ++commands;
    ProcessResult r;
    r.started = true;
    r.exit_code = 1;
    r.output = "solutions/matmul.cu(1): error: simulated";
    for (const std::string& word : command.argv)
      if (word.find("/solutions/") != std::string::npos ||
          word.find("/compiler_check/") != std::string::npos)
        return r;
    ADD_FAILURE() << "unexpected command: " << command.argv.front();
    return r;
  }
  int commands = 0;
};

// The reference solution failing to build is the kit's fault: the speed item is a grader error
// (the batch records "not graded" and retries it), never a "failed" that scores the student 0.
TEST(SpeedGrader, ReferenceThatDoesNotBuildIsAGraderFault) {
  Manifest manifest;
  std::string error;
  ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest, error)) << error;
  auto spec = LoadLabSpec(manifest.LabDir("03_tiled_matmul"));
  ASSERT_TRUE(spec.ok()) << spec.error();
  ASSERT_TRUE(spec->speed);
  spec->speed->size = {64, 64, 64};     // the inputs are generated before the reference is built
  manifest.nvcc = "/nonexistent/nvcc";  // a GPU toolchain on paper; the runner answers for it
  manifest.gpu_libs[spec->id] = {"/nonexistent/lib.a"};
  const fs::path work =
      fs::temp_directory_path() / ("labkit_speed_grader_test_" + std::to_string(getpid()));
  ReferenceWontBuild runner;
  GradeEnv env{runner, manifest, *spec, Backend::kGpu, 1, work.string()};
  const SpeedOutcome out = GradeSpeed(env, /*exercise_passed=*/true);
  EXPECT_EQ(out.kind, SpeedMeasurement::Kind::kGraderError);
  EXPECT_EQ(out.cause, "reference_build");
  EXPECT_NE(out.message.find("the kit's reference solution did not build"), std::string::npos)
      << out.message;
  EXPECT_EQ(runner.commands, 2);  // the student's timing is not wasted on it
  fs::remove_all(work);
}

// The speed item's paths, with a scripted harness and the reference's timing already in the
// batch's cache (its build is the test above's concern).
class SpeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = fs::temp_directory_path() /
            ("labkit_speed_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(work_);
    fs::create_directories(work_);
    spec_.id = "speed_lab";
    Speed speed;
    speed.exercise = "tiled";
    speed.points = 5;
    speed.size = {32, 32, 32};
    speed.input_sets = 2;
    spec_.speed = speed;
    BuildOutcome& build = builds_[Flavour::kDefault];
    build.ok = true;
    build.executable = work_ + "/default";
    std::ofstream(build.executable) << "harness";
    std::ofstream(build.executable + ".image.json") << "{}";
    double ms = 0, baseline = 0;
    cache_.Get(
        [](double& reference_ms, double& reference_baseline_ms) {
          reference_ms = 1;
          reference_baseline_ms = 10;
          return std::string();
        },
        ms, baseline);
  }
  void TearDown() override { fs::remove_all(work_); }

  SpeedOutcome Measure(Backend backend = Backend::kGpu, bool passed = true) {
    GradeEnv env{harness_, manifest_, spec_, backend, 3, work_};
    env.builds = builds_;
    env.reference_cache = &cache_;
    return GradeSpeed(env, passed);
  }

  std::string work_;
  LabSpec spec_;
  Manifest manifest_;
  std::map<Flavour, BuildOutcome> builds_;
  ReferenceTimingCache cache_;
  testing_harness::ScriptedHarness harness_;
};

TEST_F(SpeedTest, ATimedRunThatChecksOutIsMeasured) {
  const SpeedOutcome out = Measure();
  EXPECT_EQ(out.kind, SpeedMeasurement::Kind::kMeasured) << out.message;
  EXPECT_EQ(out.student_ms, 2);
  EXPECT_EQ(out.baseline_ms, 10);
  EXPECT_EQ(out.speedup(), 5);
  EXPECT_EQ(out.reference_speedup(), 10);
}

TEST_F(SpeedTest, NotMeasuredOnTheCpuBackendAndNotCountedBeforeAPass) {
  EXPECT_EQ(Measure(Backend::kCpu).kind, SpeedMeasurement::Kind::kNotMeasured);
  const SpeedOutcome out = Measure(Backend::kGpu, /*passed=*/false);
  EXPECT_EQ(out.kind, SpeedMeasurement::Kind::kFailed);
  EXPECT_EQ(out.cause, "timed_exercise_failed");
  EXPECT_TRUE(harness_.calls.empty());
}

TEST_F(SpeedTest, EachWayATimedRunGoesWrongHasItsCause) {
  struct Path {
    testing_harness::TimingAnswer answer;
    std::string cause, message;
  };
  std::vector<Path> paths(4);
  paths[0].answer.reported = false;
  paths[0] = {paths[0].answer, "timed_run_died", "the timed run did not finish"};
  paths[1].answer.status = "cuda_error";
  paths[1] = {paths[1].answer, "timed_run_failed", "the timed run failed: cudaErrorLaunchFailure"};
  paths[2].answer.mismatched_reps = 1;
  paths[2] = {paths[2].answer, "timed_run_failed", "a grid sized for smaller matrices"};
  paths[3].answer.right_outputs = false;
  paths[3] = {paths[3].answer, "timed_output_wrong", "the output of a timed run is wrong"};
  for (const Path& path : paths) {
    harness_.on_timing = [&](const testing_harness::HarnessCall&) { return path.answer; };
    const SpeedOutcome out = Measure();
    EXPECT_EQ(out.kind, SpeedMeasurement::Kind::kFailed) << path.cause;
    EXPECT_EQ(out.cause, path.cause);
    EXPECT_NE(out.message.find(path.message), std::string::npos) << out.message;
  }
}

}  // namespace
}  // namespace labkit
