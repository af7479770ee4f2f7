#include "report_lines.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace labkit {
namespace {

TEST(ReadJsonObjectLines, KeepsOnlyObjects) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("labkit_report_lines_" + std::to_string(getpid()) + ".jsonl");
  std::ofstream(path) << "{\"type\": \"done\"}\n[1, 2]\n\"text\"\n42\n\n{\"type\": \"cut short\n"
                      << "\x01\x02 binary\n{\"type\": \"case\"}\n";
  const std::vector<nlohmann::json> lines = ReadJsonObjectLines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(TextField(lines[0], "type"), "done");
  EXPECT_EQ(TextField(lines[1], "type"), "case");
  std::filesystem::remove(path);
  EXPECT_TRUE(ReadJsonObjectLines(path).empty());
}

TEST(Fields, AFieldOfTheWrongTypeReadsAsMissing) {
  const nlohmann::json line = {{"name", "H100"}, {"status", 7}, {"ms", 1.5}, {"count", "many"},
                               {"clock", 1980}};
  EXPECT_EQ(TextField(line, "name"), "H100");
  EXPECT_EQ(TextField(line, "status"), "");
  EXPECT_EQ(TextField(line, "absent"), "");
  EXPECT_EQ(NumberField(line, "ms"), 1.5);
  EXPECT_TRUE(std::isnan(NumberField(line, "count")));
  EXPECT_EQ(NumberField(line, "count", 0.0), 0.0);
  EXPECT_EQ(IntegerField(line, "clock", -1), 1980);
  EXPECT_EQ(IntegerField(line, "name", -1), -1);
  EXPECT_EQ(TextField(nlohmann::json::array({1, 2}), "name"), "");  // not an object at all
  EXPECT_EQ(IntegerField(nullptr, "clock", -1), -1);
}

}  // namespace
}  // namespace labkit
