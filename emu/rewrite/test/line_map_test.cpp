#include "line_map.h"

#include <gtest/gtest.h>

namespace emu::rewrite {
namespace {

TEST(LineMap, CountsLinesFromTheLastMarker) {
  const std::string src = "a\n# 10 \"x.cu\"\nb\nc\n# 3 \"y.h\" 1\nd\n";
  const auto toks = tokenize(src).tokens;
  const LineMap map(src, toks);
  EXPECT_EQ(map.at(src.find('a')).line, 1);
  EXPECT_EQ(map.at(src.find('a')).file, "");
  EXPECT_EQ(map.at(src.find("\nb") + 1).line, 10);
  EXPECT_EQ(map.at(src.find("\nc") + 1).line, 11);
  EXPECT_EQ(map.at(src.find("\nc") + 1).file, "x.cu");
  EXPECT_EQ(map.at(src.find("\nd") + 1).line, 3);
  EXPECT_EQ(map.at(src.find("\nd") + 1).file, "y.h");
}

TEST(LineMap, ParsesBothMarkerForms) {
  long line = 0;
  std::string file;
  ASSERT_TRUE(parse_line_marker("# 42 \"dir/a b.cu\" 1 3", &line, &file));
  EXPECT_EQ(line, 42);
  EXPECT_EQ(file, "dir/a b.cu");
  ASSERT_TRUE(parse_line_marker("#line 7 \"q\\\"x.cu\"", &line, &file));
  EXPECT_EQ(line, 7);
  EXPECT_EQ(file, "q\\\"x.cu");  // kept escaped, as it must be written back
  EXPECT_FALSE(parse_line_marker("#pragma once", &line, &file));
  EXPECT_FALSE(parse_line_marker("#define X 1", &line, &file));
}

}  // namespace
}  // namespace emu::rewrite
