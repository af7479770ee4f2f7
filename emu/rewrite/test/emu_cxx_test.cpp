#include "emu_cxx.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace emu::cxx {
namespace {

using V = std::vector<std::string>;

// Records commands instead of running them. The rewrite step "writes" its output file, with the
// text given, so the driver can pick the language of the compile step.
class FakeRunner : public CommandRunner {
 public:
  int run(const V& argv) override {
    commands.push_back(argv);
    if (argv.size() == 3 && argv[0] == "emu-rewrite") std::ofstream(argv[2]) << rewritten_text;
    const int rc = commands.size() == fail_at ? 7 : 0;
    return rc;
  }
  std::vector<V> commands;
  std::size_t fail_at = 0;  // 1-based index of the command that fails; 0: none
  std::string rewritten_text = "int x;\n";
};

class EmuCxx : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.paths = {"emu-rewrite", "cuda_emu.h", "include"};
    out_ = ::testing::TempDir() + "emu_cxx_test_k.o";
  }
  V compile_command() const { return {"g++", "-c", "k.cu", "-o", out_}; }
  Options options_;
  std::string out_;
  FakeRunner runner_;
};

TEST_F(EmuCxx, RunsPreprocessRewriteCompileInOrder) {
  EXPECT_EQ(run_launcher(compile_command(), options_, runner_), 0);
  ASSERT_EQ(runner_.commands.size(), 3u);
  EXPECT_EQ(runner_.commands[0][0], "g++");
  EXPECT_EQ(runner_.commands[1], (V{"emu-rewrite", out_ + ".emu.ii", out_ + ".emu.cpp"}));
  EXPECT_EQ(runner_.commands[2],
            (V{"g++", "-c", "-o", out_, "-x", "c++-cpp-output", out_ + ".emu.cpp"}));
}

TEST_F(EmuCxx, CompilesWithThePreprocessorWhenTheRewriteDefinedMacros) {
  runner_.rewritten_text = "#define tile (x)\n";
  EXPECT_EQ(run_launcher(compile_command(), options_, runner_), 0);
  ASSERT_EQ(runner_.commands.size(), 3u);
  EXPECT_EQ(runner_.commands[2][5], "c++");
}

TEST_F(EmuCxx, StopsAtTheFirstFailingStepWithItsStatus) {
  for (std::size_t step = 1; step <= 3; ++step) {
    FakeRunner runner;
    runner.fail_at = step;
    EXPECT_EQ(run_launcher(compile_command(), options_, runner), 7);
    EXPECT_EQ(runner.commands.size(), step);
  }
}

TEST_F(EmuCxx, RemovesTemporariesUnlessAskedToKeepThem) {
  run_launcher(compile_command(), options_, runner_);
  EXPECT_FALSE(std::ifstream(out_ + ".emu.cpp").good());
  options_.keep_temporaries = true;
  run_launcher(compile_command(), options_, runner_);
  EXPECT_TRUE(std::ifstream(out_ + ".emu.cpp").good());
  std::remove((out_ + ".emu.cpp").c_str());
}

TEST_F(EmuCxx, RunsTheDefaultCompilerWhenNoneIsGiven) {
  options_.default_compiler = "c++";
  EXPECT_EQ(run_launcher({"-c", "k.cu", "-o", out_}, options_, runner_), 0);
  ASSERT_EQ(runner_.commands.size(), 3u);
  EXPECT_EQ(runner_.commands[0][0], "c++");
  EXPECT_EQ(runner_.commands[2][0], "c++");
}

TEST_F(EmuCxx, RunsOtherCommandsUnchanged) {
  const V link{"g++", "a.o", "-o", "app"};
  runner_.fail_at = 1;
  EXPECT_EQ(run_launcher(link, options_, runner_), 7);
  EXPECT_EQ(runner_.commands, std::vector<V>{link});
}

}  // namespace
}  // namespace emu::cxx
