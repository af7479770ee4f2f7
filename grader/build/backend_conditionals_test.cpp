// The lines each preprocessing keeps, read off its line markers, and the first place where the
// two backends' preprocessings of the student's files differ. The real preprocessors' comparison
// runs in the red-team corpus (r7_emu_macro_extra_barrier, r31_*).
#include "backend_conditionals.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// What g++ -E -fdirectives-only writes for /s/k.cu, which includes /s/mine.cuh and <cstdio>, and
// keeps line 5 alone of its #ifdef (its line 4 is the #ifdef, 6 the #endif).
constexpr char kPreprocessed[] = R"(# 0 "/s/k.cu"
# 0 "<built-in>"
#define __GNUC__ 13
# 0 "<command-line>"
# 1 "/usr/include/stdc-predef.h" 1 3 4
# 19 "/usr/include/stdc-predef.h" 3 4
#define __STDC_IEC_559__ 1
# 0 "<command-line>" 2
# 1 "/s/k.cu"
# 1 "/s/mine.cuh" 1
#define TILE 16
# 2 "/s/k.cu" 2
# 1 "/usr/include/c++/13/cstdio" 1 3
extern "C" int printf(const char*, ...);
# 3 "/s/k.cu" 2
__global__ void k(float* x) {

  __syncthreads();

  x[0] = TILE;
}
)";

KeptLines Of(const KeptLines& all, const std::string& file) {
  KeptLines own;
  for (const KeptLine& l : all)
    if (l.file == file) own.push_back(l);
  return own;
}

TEST(BackendConditionals, LinesAreGivenToTheFileTheMarkersName) {
  const KeptLines kept = KeptLinesOf(kPreprocessed);
  EXPECT_EQ(Of(kept, "/s/k.cu"),
            (KeptLines{{"/s/k.cu", 3}, {"/s/k.cu", 5}, {"/s/k.cu", 7}, {"/s/k.cu", 8}}));
  EXPECT_EQ(Of(kept, "/s/mine.cuh"), (KeptLines{{"/s/mine.cuh", 1}}));
  EXPECT_EQ(Of(kept, "/usr/include/stdc-predef.h"),
            (KeptLines{{"/usr/include/stdc-predef.h", 19}}));
  EXPECT_TRUE(Of(kept, "<built-in>").empty());  // its line 0 is no line of a file
  // In the order they come: the header's line before the main file's.
  ASSERT_GE(kept.size(), 3u);
  EXPECT_EQ(kept[1], (KeptLine{"/s/mine.cuh", 1}));
}

// A #line in the student's file renames it in the markers (no flag): its lines stay the file's,
// and cannot be moved into a file that is not compared, <built-in> included (r31).
TEST(BackendConditionals, ALineDirectiveDoesNotMoveLinesOutOfTheFile) {
  const KeptLines kept = KeptLinesOf(
      "# 0 \"/s/k.cu\"\n# 0 \"<built-in>\"\n# 0 \"<command-line>\"\n# 1 \"/s/k.cu\"\nint a;\n"
      "# 1 \"/usr/local/cuda/include/x.h\"\nint b;\n# 1 \"/s/h.cuh\" 1\nint c;\n"
      "# 9 \"/usr/include/y.h\"\nint d;\n# 3 \"/usr/local/cuda/include/x.h\" 2\nint e;\n"
      "# 19 \"<built-in>\"\nint f;\n");
  EXPECT_EQ(kept, (KeptLines{{"/s/k.cu", 1},
                             {"/s/k.cu", 1},
                             {"/s/h.cuh", 1},
                             {"/s/h.cuh", 9},
                             {"/s/k.cu", 3},
                             {"/s/k.cu", 19}}));
}

const auto kStudents = [](const std::string& f) { return f.rfind("/s/", 0) == 0; };

TEST(BackendConditionals, TheFirstLineOfTheStudentsOneKeepsAndTheOtherNotIsNamed) {
  const KeptLines cpu = {
      {"/usr/x.h", 1}, {"/s/k.cu", 3}, {"/usr/x.h", 2}, {"/s/k.cu", 5}, {"/s/k.cu", 7}};
  KeptLines gpu = {{"/usr/x.h", 1}, {"/s/k.cu", 3}, {"/s/k.cu", 7}};
  std::optional<LineDifference> d = FirstDifference(cpu, gpu, kStudents);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/s/k.cu");
  EXPECT_EQ(d->line, 5);
  EXPECT_TRUE(d->on_cpu_backend);
  EXPECT_FALSE(d->order);
  gpu = {{"/s/k.cu", 3}, {"/s/k.cu", 5}, {"/s/k.cu", 7}};  // the kit's headers are not compared
  EXPECT_FALSE(FirstDifference(cpu, gpu, kStudents).has_value());
  gpu.push_back({"/s/only_on_a_gpu.cuh", 4});  // a header one of them includes alone
  d = FirstDifference(cpu, gpu, kStudents);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/s/only_on_a_gpu.cuh");
  EXPECT_EQ(d->line, 4);
  EXPECT_FALSE(d->on_cpu_backend);
}

// Two headers of the student's, each redefining a macro, included in another order on each side:
// every line is kept by both, so only their order tells (r31).
TEST(BackendConditionals, TheSameLinesInAnotherOrderDiffer) {
  const KeptLines cpu = {{"/s/off.cuh", 1}, {"/s/on.cuh", 1}, {"/s/k.cu", 9}};
  const KeptLines gpu = {{"/s/on.cuh", 1}, {"/s/off.cuh", 1}, {"/s/k.cu", 9}};
  const std::optional<LineDifference> d = FirstDifference(cpu, gpu, kStudents);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->order);
  EXPECT_EQ(d->file, "/s/off.cuh");
  EXPECT_NE(DifferenceMessage(*d, "").find("line 1 comes at another point"), std::string::npos);
  // Included twice on one side only.
  const KeptLines twice = {{"/s/on.cuh", 1}, {"/s/on.cuh", 1}, {"/s/k.cu", 9}};
  const KeptLines once = {{"/s/on.cuh", 1}, {"/s/k.cu", 9}};
  ASSERT_TRUE(FirstDifference(twice, once, kStudents).has_value());
  EXPECT_TRUE(FirstDifference(twice, once, kStudents)->order);
}

// A line marker written by the student, as a directive or as text a preprocessing copies as it is
// (a comment, a string, a continued line), would pass for the compiler's own (r31).
TEST(BackendConditionals, LinesThatLookLikeMarkersAreFound) {
  EXPECT_EQ(FirstLineMarkerLike("int a;\n/*\n# 1 \"/usr/include/stdio.h\" 1\n*/\n"), 3);
  EXPECT_EQ(FirstLineMarkerLike("x\n  #  7 \"k.cu\"\n"), 2);
  EXPECT_EQ(FirstLineMarkerLike("%:5 \"k.cu\" 2\n"), 1);
  EXPECT_EQ(FirstLineMarkerLike("/*\n # 1. load the tiles\n # 2 wait\n*/\n"), 0);  // a list
  EXPECT_EQ(FirstLineMarkerLike("#line 5 \"k.cu\"\n#define N 1\n#if 1\n#endif\n"), 0);
  EXPECT_EQ(FirstLineMarkerLike("int a = 1; # 2\n"), 0);
}

TEST(BackendConditionals, TheRefusalNamesTheLineAndWhichBackendCompilesIt) {
  const std::string m = DifferenceMessage({"/s/matmul.cu", 20, true}, "    __syncthreads();");
  EXPECT_EQ(m.rfind("matmul.cu line 20 is compiled on the CPU backend but not on a GPU", 0), 0u)
      << m;
  EXPECT_NE(m.find("LABKIT_EMU"), std::string::npos);
  EXPECT_NE(m.find("\n  20 |     __syncthreads();"), std::string::npos);
  EXPECT_EQ(DifferenceMessage({"/s/matmul.cu", 3, false}, "")
                .rfind("matmul.cu line 3 is compiled on a GPU but not on the CPU backend", 0),
            0u);
}

}  // namespace
}  // namespace labkit
