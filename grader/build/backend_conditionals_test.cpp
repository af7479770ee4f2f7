// The lines each preprocessing keeps, read off its line markers, and the first line of the
// student's the two backends' preprocessings disagree on. The real preprocessors' comparison (a
// source that tests LABKIT_EMU) runs in the red-team corpus (r7_emu_macro_extra_barrier).
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

TEST(BackendConditionals, LinesAreGivenToTheFileTheMarkersName) {
  const KeptLines kept = KeptLinesOf(kPreprocessed);
  EXPECT_EQ(kept.at("/s/k.cu"), (std::set<int>{3, 5, 7, 8}));
  EXPECT_EQ(kept.at("/s/mine.cuh"), (std::set<int>{1}));
  EXPECT_EQ(kept.at("/usr/include/stdc-predef.h"), (std::set<int>{19}));
  EXPECT_EQ(kept.at("/usr/include/c++/13/cstdio"), (std::set<int>{1}));
  EXPECT_EQ(kept.count("<built-in>"), 0u);  // its line 0 is no line of a file
}

// A #line in the student's file renames it in the markers (no flag): its lines stay the file's,
// and cannot be moved into a header that is not compared.
TEST(BackendConditionals, ALineDirectiveDoesNotMoveLinesOutOfTheFile) {
  const KeptLines kept = KeptLinesOf(
      "# 0 \"/s/k.cu\"\n# 1 \"/s/k.cu\"\nint a;\n# 1 \"/usr/local/cuda/include/x.h\"\n"
      "int b;\n# 1 \"/s/h.cuh\" 1\nint c;\n# 9 \"/usr/include/y.h\"\nint d;\n"
      "# 3 \"/usr/local/cuda/include/x.h\" 2\nint e;\n");
  EXPECT_EQ(kept.at("/s/k.cu"), (std::set<int>{1, 3}));   // a, then b and e after the #line
  EXPECT_EQ(kept.at("/s/h.cuh"), (std::set<int>{1, 9}));  // c, and d after its own #line
  EXPECT_EQ(kept.count("/usr/local/cuda/include/x.h"), 0u);
  EXPECT_EQ(kept.count("/usr/include/y.h"), 0u);
}

TEST(BackendConditionals, TheFirstLineOfTheStudentsOneKeepsAndTheOtherNotIsNamed) {
  const auto students = [](const std::string& f) { return f.rfind("/s/", 0) == 0; };
  const KeptLines cpu = {{"/s/k.cu", {3, 5, 7}}, {"/usr/x.h", {1, 2}}};
  KeptLines gpu = {{"/s/k.cu", {3, 7}}, {"/usr/x.h", {1}}};
  std::optional<LineDifference> d = FirstDifference(cpu, gpu, students);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/s/k.cu");
  EXPECT_EQ(d->line, 5);
  EXPECT_TRUE(d->on_cpu_backend);
  gpu["/s/k.cu"] = {3, 5, 7};  // the kit's headers may differ: they are not compared
  EXPECT_FALSE(FirstDifference(cpu, gpu, students).has_value());
  gpu["/s/only_on_a_gpu.cuh"] = {4};  // a header one of them includes alone
  d = FirstDifference(cpu, gpu, students);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->file, "/s/only_on_a_gpu.cuh");
  EXPECT_EQ(d->line, 4);
  EXPECT_FALSE(d->on_cpu_backend);
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
