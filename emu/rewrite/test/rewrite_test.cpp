#include "rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "rewrite_test_util.h"

namespace emu::rewrite {
namespace {

using testing::rewritten;

// Shaped like g++ -E output: line markers, a system header, a kernel file with all the forms.
const char* const kPreprocessed = R"(# 0 "matmul.cu"
# 1 "/usr/include/c++/12/cstdio" 1 3
namespace std { template <class T> struct vector; }
# 2 "matmul.cu" 2

__shared__ int file_scope[4];
template <int T>
__global__ void tiled(const float* A, float* C, int n) {
  __shared__ float As[T][T], Bs[T][T];
  extern __shared__ __align__(16) unsigned char smem[];
  static __shared__ volatile int
      flag;
#pragma unroll
  for (int i = 0; i < T; ++i) As[0][i] = A[i];
  C[0] = As[0][0] + Bs[0][0] + file_scope[0];
}
void run(const float* A, float* C, int n) {
  tiled<16><<<dim3(n / 16, n / 16), dim3(16, 16), 64>>>(A,
      C, n);
  const char* s = "tiled<16><<<1, 1>>>(A, C, n); __shared__ int x;";
}
)";

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(Rewrite, KeepsTheLineCountForBlockScopeRewrites) {
  const std::string in =
      "void k() {\n  __shared__ float a[4],\n    b[4];\n  k<<<1,\n 1>>>\n();\n}\n";
  EXPECT_EQ(lines(rewritten(in)), lines(in));
}

TEST(Rewrite, RewritesEveryFormInPreprocessedText) {
  const RewriteResult r = rewrite_source(kPreprocessed);
  EXPECT_TRUE(r.warnings.empty());
  for (const char* expected :
       {"\n#define file_scope (::emu::block_shared<int[4], 0>())\n# 4 \"matmul.cu\"\n",
        "auto& As = ::emu::block_shared<float[T][T], 1>(); "
        "auto& Bs = ::emu::block_shared<float[T][T], 2>();",
        "unsigned char* smem = ::emu::dynamic_shared<unsigned char>();",
        "auto& flag = ::emu::block_shared<volatile int, 3>();\n\n#pragma unroll",
        "::emu::launch(tiled<16>, dim3(n / 16, n / 16), dim3(16, 16), 64, 0, A,\n      C, n);",
        "\"tiled<16><<<1, 1>>>(A, C, n); __shared__ int x;\"",
        "namespace std { template <class T> struct vector; }"}) {
    EXPECT_NE(r.text.find(expected), std::string::npos) << expected << "\nin:\n" << r.text;
  }
}

TEST(Rewrite, IsIdempotent) {
  const std::string once = rewritten(kPreprocessed);
  EXPECT_EQ(rewritten(once), once);
  EXPECT_TRUE(rewrite_source(once).warnings.empty());
}

TEST(Rewrite, LeavesTextWithoutCudaSyntaxAlone) {
  const char* plain = "# 1 \"a.cpp\"\nint main() { return 1 << 2 >> 1; }\n";
  EXPECT_EQ(rewritten(plain), plain);
}

TEST(Rewrite, ReportsTokenizerProblemsWithTheirLine) {
  EXPECT_EQ(testing::warnings_of("# 9 \"a.cu\"\nint x;\nchar c = 'a;\n"),
            "a.cu:10: warning: emu-rewrite: unterminated character literal\n");
}

TEST(Rewrite, NeedsThePreprocessorOnlyForItsOwnDefines) {
  EXPECT_FALSE(output_needs_preprocessor(rewritten("void k() { __shared__ int x; }")));
  EXPECT_TRUE(output_needs_preprocessor(rewritten("__shared__ int x;\nvoid k() {}")));
  EXPECT_FALSE(output_needs_preprocessor("# 1 \"a.cu\"\n#pragma once\nint define;"));
}

TEST(Rewrite, NeverThrowsOnTruncatedInput) {
  const std::string src = kPreprocessed;
  for (std::size_t n = 0; n <= src.size(); n += 7) {
    EXPECT_NO_THROW(rewrite_source(src.substr(0, n))) << n;
  }
}

// Random damage (brackets, quotes, newlines inserted or deleted) must never crash or hang the
// rewriter, and whatever it makes of the damage must be stable under a second rewrite.
TEST(Rewrite, SurvivesMutatedInputAndStaysIdempotent) {
  std::mt19937 rng(2024);
  const std::string base = kPreprocessed;
  const std::string pool = "<>(){}[];,:\"'#\n _xR*&=";
  for (int iteration = 0; iteration < 500; ++iteration) {
    std::string s = base;
    for (int edit = 0; edit < 4; ++edit) {
      const std::size_t pos = rng() % (s.size() + 1);
      if (rng() % 2 == 0 && pos < s.size()) {
        s.erase(pos, 1 + rng() % 3);
      } else {
        s.insert(pos, 1, pool[rng() % pool.size()]);
      }
    }
    const std::string once = rewritten(s);
    ASSERT_EQ(rewritten(once), once) << "input:\n" << s;
  }
}

}  // namespace
}  // namespace emu::rewrite
