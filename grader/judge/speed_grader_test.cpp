#include "speed_grader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "manifest.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// Every compile of the kit's reference solution fails; nothing else may run.
class ReferenceWontBuild : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override {
    ++commands;
    ProcessResult r;
    r.started = true;
    r.exit_code = 1;
    r.output = "solutions/matmul.cu(1): error: simulated";
    for (const std::string& word : command.argv)
      if (word.find("/solutions/") != std::string::npos) return r;
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
  const fs::path work = fs::temp_directory_path() / "labkit_speed_grader_test";
  ReferenceWontBuild runner;
  GradeEnv env{runner, manifest, *spec, Backend::kGpu, 1, work.string()};
  const SpeedOutcome out = GradeSpeed(env, /*exercise_passed=*/true);
  EXPECT_EQ(out.kind, SpeedMeasurement::Kind::kGraderError);
  EXPECT_EQ(out.cause, "reference_build");
  EXPECT_NE(out.message.find("the kit's reference solution did not build"), std::string::npos)
      << out.message;
  EXPECT_EQ(runner.commands, 1);  // the student's timing is not wasted on it
  fs::remove_all(work);
}

}  // namespace
}  // namespace labkit
