#include <gtest/gtest.h>

#include <string>

#include "refused_test_util.h"
#include "rewrite.h"

namespace emu::rewrite {
namespace {

TEST(MadeDirectives, WhatGccEWritesPasses) {
  EXPECT_EQ(
      refused("# 1 \"m.cu\"\n# 1 \"<built-in>\" 1\n#pragma unroll\n#\n#ident \"rev 3\"\nint x;\n"
              "const char* s = R\"(\n#include <cuda_occupancy.h>\n)\";\n"),
      "");
}

TEST(MadeDirectives, ADirectiveAMacroWroteIsRefusedWithItsLine) {
  const std::string out = refused("# 1 \"m.cu\"\nint x;\n # include <cuda_occupancy.h>\n");
  EXPECT_EQ(out.rfind("m.cu:2: error: `", 0), 0u) << out;
  EXPECT_NE(out.find("# include <cuda_occupancy.h>` is a preprocessing directive written by a "
                     "macro"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("write #include itself"), std::string::npos) << out;
  EXPECT_NE(refused("#define LIMIT 4\n").find("write #define itself"), std::string::npos);
  EXPECT_NE(refused("#line 4 \"x.cu\"\n").find("write #line itself"), std::string::npos);
}

TEST(MadeDirectives, TheDigraphIsADirectiveToo) {
  EXPECT_NE(refused("int x;\n  %: include <cuda_occupancy.h>\n").find("write the directive itself"),
            std::string::npos);
  EXPECT_EQ(refused("int y = 5 %: 3;\n"), "") << "not at a line's start";
}

TEST(MadeDirectives, OnlyCountedCompilesRefuse) {
  EXPECT_TRUE(rewrite_source(" # include <x.h>\n", /*counted=*/false).refused.empty());
}

}  // namespace
}  // namespace emu::rewrite
