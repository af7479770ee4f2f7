// The request as labgrade writes it and the harness reads it (request_lines.h): the cases apart,
// one a line, each read only when its turn comes.
#include "harness_request.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "request_lines.h"

namespace labkit {
namespace {

class HarnessRequestTest : public ::testing::Test {
 protected:
  HarnessRequestTest() { std::filesystem::create_directories(dir_); }
  ~HarnessRequestTest() override { std::filesystem::remove_all(dir_); }
  const std::string dir_ = std::filesystem::temp_directory_path() /
                           ("labkit_harness_request_" + std::to_string(getpid()) + "/");
};

TEST_F(HarnessRequestTest, TheCasesGoOneALineAndTheRestIntoTheRequest) {
  const nlohmann::json request = {
      {"exercise", "max_width"},
      {"cases",
       {{{"id", "q0"}, {"params", nlohmann::json::object()}},
        {{"id", "q1"}, {"params", {{"max_threads_per_block", 768}}}, {"counted", true}}}}};
  ASSERT_TRUE(WriteHarnessRequest(dir_, request).ok());

  std::ifstream in(dir_ + kRequestFileName);
  const nlohmann::json whole = nlohmann::json::parse(in);
  EXPECT_FALSE(whole.contains("cases"));
  EXPECT_EQ(whole.at("exercise"), "max_width");
  EXPECT_TRUE(whole.at("marks_counted"));
  std::ifstream text(dir_ + kCasesFileName);
  std::string first, second, third;
  ASSERT_TRUE(std::getline(text, first) && std::getline(text, second));
  EXPECT_FALSE(std::getline(text, third));
  EXPECT_EQ(first.find("max_threads_per_block"), std::string::npos) << first;
  EXPECT_NE(second.find("max_threads_per_block"), std::string::npos) << second;

  CaseLines cases(dir_ + kCasesFileName);
  EXPECT_EQ(cases.Next()->at("id"), "q0");
  EXPECT_EQ(cases.Next()->at("params").at("max_threads_per_block"), 768);
  EXPECT_FALSE(cases.Next().has_value());
}

TEST_F(HarnessRequestTest, NoCaseMarkedCountedSaysSo) {
  ASSERT_TRUE(WriteHarnessRequest(dir_, {{"exercise", "rows"}, {"cases", {{{"id", "c0"}}}}}).ok());
  std::ifstream in(dir_ + kRequestFileName);
  EXPECT_FALSE(nlohmann::json::parse(in).at("marks_counted"));
}

// Nothing of a later line is read ahead: the second line, changed on disk after the first was
// read, is read as it is now.
TEST_F(HarnessRequestTest, ALaterCaseIsReadOnlyWhenItsTurnComes) {
  const std::string path = dir_ + kCasesFileName;
  std::ofstream(path) << R"({"id":"a"})"
                      << "\n"
                      << R"({"id":"b"})"
                      << "\n";
  CaseLines cases(path);
  EXPECT_EQ(cases.Next()->at("id"), "a");
  {
    std::fstream rewrite(path, std::ios::in | std::ios::out);
    rewrite.seekp(std::string(R"({"id":"a"})").size() + 1);
    rewrite << R"({"id":"c"})";
  }
  EXPECT_EQ(cases.Next()->at("id"), "c");
  EXPECT_FALSE(cases.Next().has_value());
}

TEST_F(HarnessRequestTest, ALineThatIsNoObjectOrNoFileIsAnError) {
  std::ofstream(dir_ + kCasesFileName) << "[1, 2]\n";
  CaseLines cases(dir_ + kCasesFileName);
  EXPECT_THROW(cases.Next(), std::runtime_error);
  EXPECT_THROW(CaseLines(dir_ + "missing.jsonl"), std::runtime_error);
}

}  // namespace
}  // namespace labkit
