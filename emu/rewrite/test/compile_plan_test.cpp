#include "compile_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace emu::cxx {
namespace {

using V = std::vector<std::string>;

const EmuPaths kPaths{"/emu/emu-rewrite", "/rt/include/labkit_emu/cuda_emu.h", "/rt/include"};

TEST(CompilePlan, CMakeNinjaCommandOfAWrapper) {
  // What Ninja runs for a source of a target with CXX_COMPILER_LAUNCHER set.
  const auto plan =
      plan_compile({"/usr/bin/c++", "-DLAB=3", "-I/src/inc", "-isystem", "/sys", "-O2", "-g",
                    "-std=gnu++17", "-MD", "-MT", "obj/a.cu.cpp.o", "-MF", "obj/a.cu.cpp.o.d", "-o",
                    "obj/a.cu.cpp.o", "-c", "/build/emu_src/a.cu.cpp"},
                   kPaths);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->input, "/build/emu_src/a.cu.cpp");
  EXPECT_EQ(plan->output, "obj/a.cu.cpp.o");
  EXPECT_EQ(plan->preprocess, (V{"/usr/bin/c++",
                                 "-D__LABKIT_EMU__=1",
                                 "-I",
                                 "/rt/include",
                                 "-include",
                                 "/rt/include/labkit_emu/cuda_emu.h",
                                 "-O2",
                                 "-g",
                                 "-std=gnu++17",
                                 "-DLAB=3",
                                 "-I/src/inc",
                                 "-isystem",
                                 "/sys",
                                 "-MD",
                                 "-MT",
                                 "obj/a.cu.cpp.o",
                                 "-MF",
                                 "obj/a.cu.cpp.o.d",
                                 "-E",
                                 "-o",
                                 "obj/a.cu.cpp.o.emu.ii",
                                 "-x",
                                 "c++",
                                 "/build/emu_src/a.cu.cpp"}));
  EXPECT_EQ(plan->rewrite,
            (V{"/emu/emu-rewrite", "obj/a.cu.cpp.o.emu.ii", "obj/a.cu.cpp.o.emu.cpp"}));
  EXPECT_EQ(plan->compile,
            (V{"/usr/bin/c++", "-O2", "-g", "-std=gnu++17", "-c", "-o", "obj/a.cu.cpp.o"}));
}

TEST(CompilePlan, LabgradeCommandOfAStudentFile) {
  const auto plan = plan_compile(
      {"g++", "-c", "-O2", "-g", "-ffp-contract=off", "matmul.cu", "-o", "out/matmul.o"}, kPaths);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->preprocess.back(), "matmul.cu");
  EXPECT_EQ(plan->compile,
            (V{"g++", "-O2", "-g", "-ffp-contract=off", "-c", "-o", "out/matmul.o"}));
}

TEST(CompilePlan, ACountedCompileRewritesWithTheCountsCheck) {
  const auto counted = plan_compile(
      {"g++", "-c", "-O2", "-fsanitize=kernel-address", "matmul.cu", "-o", "out/matmul.o"}, kPaths);
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->rewrite,
            (V{"/emu/emu-rewrite", "--counted", "out/matmul.o.emu.ii", "out/matmul.o.emu.cpp"}));
  const auto plain = plan_compile({"g++", "-c", "-O2", "matmul.cu", "-o", "out/matmul.o"}, kPaths);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->rewrite[1], "out/matmul.o.emu.ii");
  const auto allowed = plan_compile({"g++", "-c", "-fsanitize=kernel-address", "matmul.cu"}, kPaths,
                                    /*refuse_uncounted=*/false);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->rewrite[1], "matmul.o.emu.ii");
}

TEST(CompilePlan, PreprocessorOnlyFlagsStayOutOfTheCompileStep) {
  const auto plan =
      plan_compile({"g++", "-c", "k.cu", "-D", "X=1", "-UY", "-include", "pch.h", "-imacros", "m.h",
                    "-Wp,-DZ", "-iquote", "q", "-MMD", "-MP", "-Wall"},
                   kPaths);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->compile, (V{"g++", "-Wall", "-c", "-o", "k.o"}));
  EXPECT_EQ(plan->preprocess, (V{"g++",      "-D__LABKIT_EMU__=1",
                                 "-I",       "/rt/include",
                                 "-include", "/rt/include/labkit_emu/cuda_emu.h",
                                 "-Wall",    "-D",
                                 "X=1",      "-UY",
                                 "-include", "pch.h",
                                 "-imacros", "m.h",
                                 "-Wp,-DZ",  "-iquote",
                                 "q",        "-MMD",
                                 "-MP",      "-MF",
                                 "k.d",      "-MT",
                                 "k.o",      "-E",
                                 "-o",       "k.o.emu.ii",
                                 "-x",       "c++",
                                 "k.cu"}));
}

TEST(CompilePlan, ChoosesTheLanguageItself) {
  const auto plan = plan_compile({"g++", "-x", "cu", "-c", "k.cu", "-xc++", "-o", "k.o"}, kPaths);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->compile, (V{"g++", "-c", "-o", "k.o"}));
}

// -E on a CUDA source: the CPU backend's view of it (the emulator's header and macros), alone.
TEST(CompilePlan, APreprocessingIsTheEmulatorsFirstStepAlone) {
  const auto plan = plan_compile(
      {"g++", "-std=c++17", "-I/lab", "-E", "-fdirectives-only", "k.cu", "-o", "k.ii"}, kPaths);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->preprocess,
            (V{"g++", "-D__LABKIT_EMU__=1", "-I", "/rt/include", "-include",
               "/rt/include/labkit_emu/cuda_emu.h", "-std=c++17", "-fdirectives-only", "-I/lab",
               "-E", "-o", "k.ii", "-x", "c++", "k.cu"}));
  EXPECT_TRUE(plan->rewrite.empty());
  EXPECT_TRUE(plan->compile.empty());
  const auto to_stdout = plan_compile({"g++", "-E", "k.cu"}, kPaths);
  ASSERT_TRUE(to_stdout);
  EXPECT_EQ(to_stdout->preprocess.back(), "k.cu");
  EXPECT_EQ(std::count(to_stdout->preprocess.begin(), to_stdout->preprocess.end(), "-o"), 0);
}

TEST(CompilePlan, PassesEverythingElseThrough) {
  for (const V& command : {V{"g++", "a.o", "b.o", "-o", "app"},         // link
                           V{"g++", "-c", "host.cpp", "-o", "host.o"},  // plain C++ source
                           V{"g++", "-E", "host.cpp"},                  // plain C++, -E
                           V{"g++", "-E", "-c", "k.cu"},                // both: unknowable
                           V{"g++", "-c", "a.cu", "b.cu"},              // two sources
                           V{"g++", "-c", "-S", "k.cu"},                // assembly
                           V{"g++", "-c", "@args.rsp"},                 // response file: unknowable
                           V{"g++", "--version"}, V{}}) {
    EXPECT_FALSE(plan_compile(command, kPaths)) << (command.empty() ? "" : command.back());
  }
}

}  // namespace
}  // namespace emu::cxx
