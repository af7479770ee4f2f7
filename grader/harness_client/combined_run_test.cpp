#include "combined_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "request_files_test_util.h"

namespace labkit {
namespace {

// Plays the harness: answers every case of the request, failing those of exercise "broken", and
// remembers which exercise each case asked for.
class EchoHarness : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override {
    // Named relative to the program's folder (HarnessCommand).
    const std::filesystem::path folder = command.cwd;
    const nlohmann::json request = ReadWholeRequest(folder / command.argv.at(1));
    top_exercise = request.at("exercise");
    std::ofstream out(folder / command.argv.at(2));
    out << R"({"type": "device", "backend": "cpu", "name": "model"})" << "\n";
    for (const auto& c : request.at("cases")) {
      const std::string exercise = c.value("exercise", top_exercise);
      asked.push_back(c.at("id").get<std::string>() + "=" + exercise);
      nlohmann::json line = {{"type", "case"}, {"id", c.at("id")}, {"launches", nlohmann::json::array()}};
      line["status"] = exercise == "broken" ? "cuda_error" : "ok";
      out << line.dump() << "\n";
    }
    out << R"({"type": "done"})" << "\n";
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
  }
  std::string top_exercise;
  std::vector<std::string> asked;
};

TEST(CombinedRun, EachExerciseGetsBackItsOwnCasesUnderTheirOwnIds) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_combined_run_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  // Two parameter sets of one exercise share case ids; the process must still keep them apart.
  const MatrixCase one{"dynamic_0", {1, 1, 1}, {1.0f}, {2.0f}};
  const MatrixCase two{"dynamic_1", {1, 1, 1}, {3.0f}, {4.0f}};
  const std::vector<ExerciseCases> groups = {{"dynamic?side=8", {one, two}},
                                             {"broken", {one}},
                                             {"dynamic?side=16", {one, two}}};
  EchoHarness harness;
  const std::vector<HarnessRun> parts = RunCombined(harness, "harness", dir, {}, groups);

  EXPECT_EQ(harness.top_exercise, "dynamic?side=8");
  EXPECT_EQ(harness.asked,
            (std::vector<std::string>{"g0_dynamic_0=dynamic?side=8", "g0_dynamic_1=dynamic?side=8",
                                      "g1_dynamic_0=broken", "g2_dynamic_0=dynamic?side=16",
                                      "g2_dynamic_1=dynamic?side=16"}));
  ASSERT_EQ(parts.size(), 3u);
  for (const HarnessRun& part : parts) {
    EXPECT_TRUE(part.done);
    EXPECT_EQ(part.device.value("name", ""), "model");
  }
  ASSERT_EQ(parts[0].cases.size(), 2u);
  EXPECT_EQ(parts[0].cases[0].id, "dynamic_0");
  EXPECT_EQ(parts[0].cases[1].id, "dynamic_1");
  EXPECT_EQ(parts[0].cases[1].status, "ok");
  ASSERT_EQ(parts[1].cases.size(), 1u);
  EXPECT_EQ(parts[1].cases[0].status, "cuda_error");
  ASSERT_EQ(parts[2].cases.size(), 2u);
  EXPECT_TRUE(parts[2].cases[1].reported);
  EXPECT_EQ(parts[2].cases[1].status, "ok");
  std::filesystem::remove_all(dir);
}

TEST(CombinedRun, CasesOfAProcessThatDiedAreNotReported) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_combined_run_dead_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  struct DiesAtOnce : ProcessRunner {
    ProcessResult Run(const Command&) override {
      ProcessResult r;
      r.started = true;
      r.signal = 11;
      return r;
    }
  } dies;
  const MatrixCase c{"tiled_0", {1, 1, 1}, {1.0f}, {1.0f}};
  const std::vector<HarnessRun> parts =
      RunCombined(dies, "harness", dir, {}, {{"tiled", {c}}, {"tiled_any", {c}}});
  ASSERT_EQ(parts.size(), 2u);
  for (const HarnessRun& part : parts) {
    EXPECT_FALSE(part.done);
    ASSERT_EQ(part.cases.size(), 1u);
    EXPECT_FALSE(part.cases[0].reported);
    EXPECT_EQ(part.process.signal, 11);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace labkit
