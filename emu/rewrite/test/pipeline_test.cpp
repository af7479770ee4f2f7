// emu-cxx and emu-rewrite as built, driving the real host compiler, with the stand-in header of
// stub/ instead of emu::runtime: checks that rewritten code compiles, runs, and that compiler
// errors still name the student's file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "process_util.h"

namespace emu::testing {
namespace {

const std::string kTestDir = EMU_TEST_SOURCE_DIR;
const std::string kOutDir = EMU_TEST_BINARY_DIR;

// emu-cxx <host compiler> <args>, pointed at the stand-in header.
std::string emu_cxx(const std::string& args) {
  return "LABKIT_EMU_HEADER=" + kTestDir +
         "/stub/labkit_emu/cuda_emu.h LABKIT_EMU_INCLUDE=" + kTestDir +
         "/stub " EMU_CXX_PATH " " EMU_HOST_CXX " -std=c++17 " + args;
}

TEST(Pipeline, CompilesAndRunsAKernelFile) {
  const std::string obj = kOutDir + "/pipeline_sample.o", exe = kOutDir + "/pipeline_sample";
  const CommandOutput compile =
      run_command(emu_cxx("-O1 -Wall -c " + kTestDir + "/data/sample.cu -o " + obj));
  ASSERT_EQ(compile.status, 0) << compile.output;
  EXPECT_EQ(compile.output, "");  // no warnings from the rewriter or the compiler
  const CommandOutput link = run_command(emu_cxx(obj + " -o " + exe));  // a link: passed through
  ASSERT_EQ(link.status, 0) << link.output;
  const CommandOutput run = run_command(exe);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.output, "scale: 0 3 6 9 12 15 18 21\nsum: 6\nk<<<1, 1>>>(x) stays in a string\n");
}

TEST(Pipeline, CompilerErrorsNameTheStudentsFileAndLine) {
  const CommandOutput compile = run_command(
      emu_cxx("-c " + kTestDir + "/data/compile_error.cu -o " + kOutDir + "/compile_error.o"));
  EXPECT_NE(compile.status, 0);
  EXPECT_NE(compile.output.find("compile_error.cu:7:10: error: "), std::string::npos)
      << compile.output;
  EXPECT_NE(compile.output.find("undeclared_name"), std::string::npos) << compile.output;
}

TEST(Pipeline, WritesTheDependencyFileOfThePreprocessingStep) {
  const std::string obj = kOutDir + "/dep_sample.o";
  const CommandOutput compile = run_command(emu_cxx("-MD -MT " + obj + " -MF " + obj + ".d -c " +
                                                    kTestDir + "/data/sample.cu -o " + obj));
  ASSERT_EQ(compile.status, 0) << compile.output;
  const CommandOutput deps = run_command("cat " + obj + ".d");
  EXPECT_NE(deps.output.find("sample.cu"), std::string::npos) << deps.output;
  EXPECT_NE(deps.output.find("cuda_emu.h"), std::string::npos) << deps.output;
}

TEST(RewriteTool, WarnsWithTheStudentsLineAndStillWritesItsOutput) {
  const std::string in = kOutDir + "/tool_input.ii", out = kOutDir + "/tool_output.cpp";
  std::ofstream(in) << "# 20 \"lab.cu\"\nk<<<1>>>(x);\n";
  const CommandOutput r = run_command(EMU_REWRITE_PATH " " + in + " " + out);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output,
            "lab.cu:20: warning: emu-rewrite: expected '<<<grid, block[, shared_bytes[, "
            "stream]]>>>(arguments)'; left unchanged\n");
  EXPECT_EQ(run_command("cat " + out).output, "# 20 \"lab.cu\"\nk<<<1>>>(x);\n");
}

TEST(RewriteTool, FailsOnAMissingInput) {
  const CommandOutput r = run_command(EMU_REWRITE_PATH " /nonexistent/x.ii " + kOutDir + "/x.cpp");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "emu-rewrite: cannot read /nonexistent/x.ii\n");
}

}  // namespace
}  // namespace emu::testing
