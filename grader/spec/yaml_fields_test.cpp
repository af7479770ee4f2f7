#include "yaml_fields.h"

#include <gtest/gtest.h>

namespace labkit {
namespace yaml_fields {
namespace {

TEST(YamlFields, DescribeSaysWhatANodeIs) {
  EXPECT_EQ(Describe(YAML::Load("12")), "12");
  EXPECT_EQ(Describe(YAML::Load("-1.5")), "-1.5");
  EXPECT_EQ(Describe(YAML::Load("ten")), "\"ten\"");
  EXPECT_EQ(Describe(YAML::Load("[1, 2]")), "a list");
  EXPECT_EQ(Describe(YAML::Load("{a: 1}")), "a mapping");
  EXPECT_EQ(Describe(YAML::Load("a:")["a"]), "nothing");
}

TEST(YamlFields, EditDistance) {
  EXPECT_EQ(EditDistance("technique", "techniqe"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kernel", "kernel"), 0u);
}

TEST(YamlFields, ReadersReportWithLineAndPath) {
  Checker c("f.yaml");
  const YAML::Node doc = YAML::Load("a: 1\nb: x\nc: .inf\nd: 0.5\ne: yes\nf: [1]\n");
  EXPECT_EQ(ReadInt(c, doc["a"], "a", 1), 1);
  EXPECT_FALSE(ReadInt(c, doc["b"], "b", 0));
  EXPECT_FALSE(ReadNumber(c, doc["c"], "c", 0, true));  // finite only
  EXPECT_EQ(ReadNumber(c, doc["d"], "d", 0, true), 0.5);
  EXPECT_FALSE(ReadNumber(c, doc["d"], "d", 1, false));
  EXPECT_EQ(ReadBool(c, doc["e"], "e"), true);
  EXPECT_FALSE(ReadString(c, doc["f"], "f"));
  EXPECT_EQ(c.Joined(),
            "f.yaml:2: b: expected a non-negative integer, got \"x\"\n"
            "f.yaml:3: c: expected a number > 0, got .inf\n"
            "f.yaml:4: d: expected a number >= 1, got 0.5\n"
            "f.yaml:6: f: expected a string, got a list");
}

TEST(YamlFields, NamesAndPaths) {
  Checker c("f.yaml");
  const YAML::Node doc = YAML::Load("[ok_1, 'a b', 2x, /abs, a/../../b, sub/file.cu]");
  EXPECT_EQ(ReadName(c, doc[0], "n"), "ok_1");
  EXPECT_FALSE(ReadName(c, doc[1], "n"));
  EXPECT_FALSE(ReadCIdentifier(c, doc[2], "id"));
  EXPECT_FALSE(ReadRelativePath(c, doc[3], "p"));
  EXPECT_FALSE(ReadRelativePath(c, doc[4], "p"));
  EXPECT_EQ(ReadRelativePath(c, doc[5], "p"), "sub/file.cu");
  EXPECT_EQ(c.Joined(),
            "f.yaml:1: n: \"a b\" may hold only letters, digits, '_' and '-'\n"
            "f.yaml:1: id: \"2x\" is not a C++ identifier\n"
            "f.yaml:1: p: \"/abs\" must be a relative path that stays inside its folder\n"
            "f.yaml:1: p: \"a/../../b\" must be a relative path that stays inside its folder");
}

TEST(YamlFields, MapViewChecksKeys) {
  Checker c("f.yaml");
  const YAML::Node doc = YAML::Load("top:\n  size: 1\n  sise: 2\n  size: 3\n  colour: red\n");
  MapView m(c, doc["top"], "top", {"size", "count"});
  int64_t size = 0, count = 7;
  m.Required("size", IntAtLeast(0), size);
  m.Optional("count", IntAtLeast(0), count);
  EXPECT_EQ(size, 1);
  EXPECT_EQ(count, 7);
  m.Required("count", IntAtLeast(0), count);
  EXPECT_EQ(c.Joined(),
            "f.yaml:2: top: missing key \"count\"\n"
            "f.yaml:3: top.sise: unknown key (did you mean \"size\"?)\n"
            "f.yaml:4: top.size: key given twice\n"
            "f.yaml:5: top.colour: unknown key");
}

TEST(YamlFields, FreeKeysAndLists) {
  Checker c("f.yaml");
  const YAML::Node doc = YAML::Load("any: [a, b c, d]\nnone: []\n");
  MapView m(c, doc, "", {}, /*free_keys=*/true);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.key(1), "none");
  std::vector<std::string> names;
  m.Required("any", ListOf(ReadName, "names", true), names);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "d"}));  // the bad one is left out
  m.Required("none", ListOf(ReadName, "names", true), names);
  EXPECT_EQ(c.Joined(),
            "f.yaml:1: any[1]: \"b c\" may hold only letters, digits, '_' and '-'\n"
            "f.yaml:2: none: expected a non-empty list of names, got a list");
}

}  // namespace
}  // namespace yaml_fields
}  // namespace labkit
