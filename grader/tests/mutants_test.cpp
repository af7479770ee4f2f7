// Known-bad kernels (mutants/<lab>.yaml) must each be caught, with the message a student needs,
// and the reference solution must score the same every time it is graded. Runs on the backend
// given by --backend=cpu|gpu; without a GPU the gpu run skips every test with a message.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend.h"
#include "grade.h"
#include "lab_spec.h"
#include "manifest.h"
#include "test_backend.h"
#include "report.h"
#include "scratch_dir.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;


struct Replacement {
  std::string from, to;
};

struct Mutant {
  std::string lab, file, name, exercise, status;
  std::vector<Replacement> replace;
  std::vector<std::string> expect, expect_cpu, expect_gpu;
  std::vector<std::string> expect_tsan;  // CPU backend with --tsan: these too
  std::vector<std::string> backends;     // empty: both
};

// Printed by gtest for a failing parameter: the name says it all.
void PrintTo(const Mutant& m, std::ostream* os) { *os << m.name; }

std::vector<std::string> Strings(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node)
    for (const auto& e : node) out.push_back(e.as<std::string>());
  return out;
}

std::vector<Mutant> LoadMutants() {
  std::vector<Mutant> mutants;
  for (const auto& entry : fs::directory_iterator(LABKIT_MUTANTS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node root = YAML::LoadFile(entry.path().string());
    for (const auto& m : root["mutants"]) {
      Mutant mutant;
      mutant.lab = root["lab"].as<std::string>();
      mutant.file = root["file"].as<std::string>();
      mutant.name = m["name"].as<std::string>();
      mutant.exercise = m["exercise"].as<std::string>();
      mutant.status = m["status"].as<std::string>();
      for (const auto& r : m["replace"])
        mutant.replace.push_back({r["from"].as<std::string>(), r["to"].as<std::string>()});
      mutant.expect = Strings(m["expect"]);
      mutant.expect_cpu = Strings(m["expect_cpu"]);
      mutant.expect_gpu = Strings(m["expect_gpu"]);
      mutant.expect_tsan = Strings(m["expect_tsan"]);
      mutant.backends = Strings(m["backends"]);
      mutants.push_back(mutant);
    }
  }
  return mutants;
}

std::vector<Mutant> RaceMutants() {
  std::vector<Mutant> races;
  for (const Mutant& m : LoadMutants())
    if (!m.expect_tsan.empty()) races.push_back(m);
  return races;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Grading : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest_, error)) << error;
    if (const std::string why = WhyBackendUnavailable(manifest_); !why.empty()) GTEST_SKIP() << why;
  }

  // Grades `src` on lab `lab`, or on its exercise `only` alone (OnlyExercise) when given.
  GradeResult Grade(const std::string& lab, const std::string& src, uint64_t seed,
                    const std::string& tag, bool thread_sanitizer = false,
                    const std::string& only = "") {
    auto spec = LoadLabSpec(manifest_.LabDir(lab));
    EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error());
    if (!spec.ok()) return {};
    if (!only.empty()) {
      spec = OnlyExercise(*spec, only);
      EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error());
      if (!spec.ok()) return {};
    }
    spec_ = *spec;
    GradeRequest request;
    request.src_dir = src;
    request.submission_name = tag;
    request.backend = BackendUnderTest();
    request.seed = seed;
    request.thread_sanitizer = thread_sanitizer;
    const ScratchDir work("labkit_test_" + tag);
    request.work_dir = work.path().string();
    return GradeSubmission(runner_, manifest_, *spec, request);
  }

  Manifest manifest_;
  LabSpec spec_;
  SystemProcessRunner runner_;
};

class MutantTest : public Grading, public ::testing::WithParamInterface<Mutant> {
 protected:
  // Grades the mutant (the solution with its replacements) and checks the exercise's verdict and
  // that every string of `expected` is in its message.
  void ExpectCaught(const Mutant& m, const std::vector<std::string>& expected,
                    bool thread_sanitizer) {
    std::string text = ReadFile(manifest_.source_dir + "/solutions/" + m.lab + "/" + m.file);
    for (const Replacement& r : m.replace) {
      const auto at = text.find(r.from);
      ASSERT_NE(at, std::string::npos) << "mutant " << m.name
                                       << ": the text to replace is no longer in the solution:\n"
                                       << r.from;
      text.replace(at, r.from.size(), r.to);
    }
    const std::string tag = "mutant_" + m.name + (thread_sanitizer ? "_tsan" : "");
    const ScratchDir dir("labkit_" + tag);
    std::ofstream(dir / m.file) << text;

    // Only the exercise the mutant breaks is checked, so only it is graded (as the student
    // corpus does): the lab's other exercises would cost builds and runs that assert nothing.
    const GradeResult result =
        Grade(m.lab, dir.path().string(), 20261122, tag, thread_sanitizer, m.exercise);
    const ExerciseResult* found = nullptr;
    for (const auto& e : result.exercises)
      if (e.id == m.exercise) found = &e;
    ASSERT_NE(found, nullptr) << "no result for exercise " << m.exercise;
    EXPECT_EQ(ToString(found->status), m.status) << found->message;
    EXPECT_EQ(found->score, 0) << found->message;
    for (const std::string& e : expected)
      EXPECT_NE(found->message.find(e), std::string::npos)
          << "expected '" << e << "' in the message:\n" << found->message;
  }
};

TEST_P(MutantTest, IsCaughtWithTheRightMessage) {
  const Mutant& m = GetParam();
  const std::string backend = BackendUnderTest() == Backend::kCpu ? "cpu" : "gpu";
  if (!m.backends.empty() &&
      std::find(m.backends.begin(), m.backends.end(), backend) == m.backends.end())
    GTEST_SKIP() << m.name << " is only checked on " << m.backends.front();
  std::vector<std::string> expected = m.expect;
  const auto& own = BackendUnderTest() == Backend::kCpu ? m.expect_cpu : m.expect_gpu;
  expected.insert(expected.end(), own.begin(), own.end());
  ExpectCaught(m, expected, /*thread_sanitizer=*/false);
}

INSTANTIATE_TEST_SUITE_P(Lab, MutantTest, ::testing::ValuesIn(LoadMutants()),
                         [](const ::testing::TestParamInfo<Mutant>& info) {
                           return info.param.name;
                         });

// The races again, under the CPU backend's ThreadSanitizer build: it must name the lines.
class RaceMutantTest : public MutantTest {};

TEST_P(RaceMutantTest, ThreadSanitizerNamesTheRacingLines) {
  if (BackendUnderTest() != Backend::kCpu)
    GTEST_SKIP() << "--tsan is the CPU backend's; on a GPU, racecheck finds races";
  const Mutant& m = GetParam();
  std::vector<std::string> expected = m.expect;
  expected.insert(expected.end(), m.expect_tsan.begin(), m.expect_tsan.end());
  ExpectCaught(m, expected, /*thread_sanitizer=*/true);
}

INSTANTIATE_TEST_SUITE_P(Lab, RaceMutantTest, ::testing::ValuesIn(RaceMutants()),
                         [](const ::testing::TestParamInfo<Mutant>& info) {
                           return info.param.name;
                         });

// No false alarm: every lab's solution under --tsan keeps full correctness marks, and the
// ThreadSanitizer check really ran (no "not run" note).
TEST_F(Grading, SolutionsHaveNoRaceUnderThreadSanitizer) {
  if (BackendUnderTest() != Backend::kCpu)
    GTEST_SKIP() << "--tsan is the CPU backend's; on a GPU, racecheck finds races";
  for (const char* lab : {"01_first_kernels", "03_tiled_matmul", "04_occupancy"}) {
    const GradeResult r = Grade(lab, manifest_.source_dir + "/solutions/" + lab, 7,
                                std::string("tsan_solution_") + lab, /*thread_sanitizer=*/true);
    const double unmeasured = r.speed_not_measured && r.speed ? r.speed->max_score : 0;
    EXPECT_EQ(r.total, r.max_total - unmeasured) << FormatTerminal(r);
    for (const ExerciseResult& e : r.exercises)
      for (const std::string& note : e.notes)
        EXPECT_EQ(note.find("ThreadSanitizer"), std::string::npos) << lab << ": " << note;
  }
}

TEST_F(Grading, SameSolutionGetsTheSamePointsEveryTime) {
  const int runs = BackendUnderTest() == Backend::kGpu ? 5 : 2;
  std::vector<double> totals;
  for (int i = 0; i < runs; ++i) {
    const GradeResult r = Grade("03_tiled_matmul", manifest_.source_dir + "/solutions/03_tiled_matmul",
                                1000 + i, "repeat");
    totals.push_back(r.total);
    // On the CPU backend speed is not measured: everything else must be full marks.
    const double unmeasured = r.speed_not_measured && r.speed ? r.speed->max_score : 0;
    EXPECT_EQ(r.total, r.max_total - unmeasured) << FormatTerminal(r);
  }
  for (double t : totals) EXPECT_EQ(t, totals.front());
}

}  // namespace
}  // namespace labkit

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  labkit::SelectBackendFromArgs(argc, argv);
  return RUN_ALL_TESTS();
}
