#include "starter_gen.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

TEST(StarterGen, ReplacesRegionWithStarterLinesKeepingIndent) {
  const std::string solution =
      "void f() {\n"
      "  // BEGIN SOLUTION\n"
      "  // STARTER: // TODO: write f\n"
      "  int x = 1;\n"
      "  // END SOLUTION\n"
      "}\n";
  const StarterResult r = MakeStarter(solution);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "void f() {\n  // TODO: write f\n}\n");
}

TEST(StarterGen, KeepsCodeOutsideRegionsVerbatim) {
  const std::string text = "a\n  b\n\nc\n";
  const StarterResult r = MakeStarter(text);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.text, text);
}

TEST(StarterGen, UnclosedRegionIsAnErrorNamingTheLine) {
  const StarterResult r = MakeStarter("x\n// BEGIN SOLUTION\ny\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "line 2: BEGIN SOLUTION is never closed");
}

TEST(StarterGen, StrayEndIsAnError) {
  const StarterResult r = MakeStarter("// END SOLUTION\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "line 1: END SOLUTION without BEGIN SOLUTION");
}

TEST(StarterGen, NestedBeginIsAnError) {
  const StarterResult r = MakeStarter("// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "line 2: BEGIN SOLUTION inside the region opened at line 1");
}

}  // namespace
}  // namespace labkit
