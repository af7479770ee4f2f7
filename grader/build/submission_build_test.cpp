#include "submission_build.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// A runner that records commands and answers from a script, so the build logic is tested without
// compilers.
class FakeRunner : public ProcessRunner {
 public:
  std::vector<Command> commands;
  int fail_at = -1;  // index of the command that fails
  std::string failure_output = "matmul.cu:3:1: error: expected ';'";
  ProcessResult Run(const Command& command) override {
    commands.push_back(command);
    ProcessResult r;
    r.started = true;
    r.exit_code = static_cast<int>(commands.size()) - 1 == fail_at ? 1 : 0;
    if (r.exit_code != 0) r.output = failure_output;
    return r;
  }
};

LabSpec TinySpec() {
  LabSpec spec;
  spec.id = "03_tiled_matmul";
  spec.student_files = {"matmul.cu"};
  return spec;
}

TEST(SubmissionBuild, MissingFileIsNamed) {
  FakeRunner runner;
  Manifest manifest;
  manifest.emu_backend = true;
  manifest.emu_libs["03_tiled_matmul"] = {"lib.a"};
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, manifest, spec);
  const BuildOutcome out = builder.Build("/nonexistent/student", "/tmp/labkit_build_test",
                                         Backend::kCpu, Flavour::kDefault);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.stage, "missing_file");
  EXPECT_NE(out.message.find("the submission has no matmul.cu"), std::string::npos);
  EXPECT_TRUE(runner.commands.empty());
}

TEST(SubmissionBuild, NoBackendInThisBuildIsAToolchainProblem) {
  FakeRunner runner;
  Manifest manifest;  // neither backend
  const LabSpec spec = TinySpec();
  SubmissionBuilder builder(runner, manifest, spec);
  const BuildOutcome out = builder.Build("/tmp", "/tmp/x", Backend::kGpu, Flavour::kDefault);
  EXPECT_EQ(out.stage, "toolchain");
}

}  // namespace
}  // namespace labkit
