// Kernels written the way students write them (student_corpus/<lab>/<case>/, each folder a
// submission plus expect.yaml): every correct one must pass, and every wrong one must fail with
// its real cause on the message's first line. Only the exercise a case targets is graded
// (OnlyExercise), at the lab's own shapes, so that forty cases cost minutes, not an hour.
//
// expect.yaml: exercise (the exercise graded), status (passed, failed, technique, compile_error),
// cause (a phrase the first line of the message must contain; for a wrong kernel), message
// (phrases anywhere in the message), known_failure (a grader bug on record: the test expects the
// case to go wrong, and fails once it stops going wrong), cpu/gpu (overrides of those keys).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "grade.h"
#include "lab_spec.h"
#include "manifest.h"
#include "report.h"
#include "sandbox.h"
#include "scratch_dir.h"
#include "test_backend.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

struct Expectation {
  std::string status, cause, known_failure;
  std::vector<std::string> message;
};

struct CorpusCase {
  std::string lab, name, dir, exercise;
  Expectation cpu, gpu;
  const Expectation& Expected() const { return BackendUnderTest() == Backend::kCpu ? cpu : gpu; }
};

void PrintTo(const CorpusCase& c, std::ostream* os) { *os << c.lab << "/" << c.name; }

Expectation Read(Expectation e, const YAML::Node& n) {
  if (!n) return e;
  if (n["status"]) e.status = n["status"].as<std::string>();
  if (n["cause"]) e.cause = n["cause"].as<std::string>();
  if (n["known_failure"]) e.known_failure = n["known_failure"].as<std::string>();
  if (n["message"]) {
    e.message.clear();
    for (const auto& m : n["message"]) e.message.push_back(m.as<std::string>());
  }
  return e;
}

std::vector<CorpusCase> LoadCases() {
  std::vector<CorpusCase> cases;
  for (const auto& lab : fs::directory_iterator(LABKIT_STUDENT_CORPUS_DIR))
    for (const auto& dir : fs::directory_iterator(lab.path())) {
      const fs::path yaml = dir.path() / "expect.yaml";
      if (!fs::exists(yaml)) continue;
      const YAML::Node n = YAML::LoadFile(yaml.string());
      CorpusCase c;
      c.lab = lab.path().filename().string();
      c.name = dir.path().filename().string();
      c.dir = dir.path().string();
      c.exercise = n["exercise"].as<std::string>();
      const Expectation base = Read({}, n);
      c.cpu = Read(base, n["cpu"]);
      c.gpu = Read(base, n["gpu"]);
      cases.push_back(c);
    }
  std::sort(cases.begin(), cases.end(),
            [](const CorpusCase& a, const CorpusCase& b) { return a.name < b.name; });
  return cases;
}

class StudentCorpus : public ::testing::TestWithParam<CorpusCase> {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest_, error)) << error;
    if (const std::string why = WhyBackendUnavailable(manifest_); !why.empty()) GTEST_SKIP() << why;
  }
  Manifest manifest_;
};

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST_P(StudentCorpus, GetsTheRightVerdictAndCause) {
  const CorpusCase& c = GetParam();
  const Expectation& want = c.Expected();
  auto lab = LoadLabSpec(manifest_.LabDir(c.lab));
  ASSERT_TRUE(lab.ok()) << lab.error();
  auto spec = OnlyExercise(*lab, c.exercise);
  ASSERT_TRUE(spec.ok()) << spec.error();

  GradeRequest request;
  request.src_dir = c.dir;
  request.submission_name = c.name;
  request.backend = BackendUnderTest();
  request.seed = 20261125;
  GradeResult result;
  {
    const ScratchDir work("labkit_corpus_" + c.name);
    request.work_dir = work.path().string();
    SandboxedProcessRunner runner(
        GradingSandboxPolicy(manifest_, spec->id, request.src_dir, request.work_dir));
    result = GradeSubmission(runner, manifest_, *spec, request);
  }

  std::vector<std::string> problems;
  const ExerciseResult* seen = nullptr;
  for (const ExerciseResult& e : result.exercises)
    if (e.id == c.exercise) seen = &e;
  if (seen == nullptr) {
    problems.push_back("no result for " + c.exercise);
  } else {
    const std::string status = ToString(seen->status);
    if (status != want.status) problems.push_back("status " + status + ", expected " + want.status);
    if (!want.cause.empty() && FirstLine(seen->message).find(want.cause) == std::string::npos)
      problems.push_back("expected '" + want.cause + "' on the message's first line");
    for (const std::string& m : want.message)
      if (seen->message.find(m) == std::string::npos)
        problems.push_back("expected '" + m + "' in the message");
    for (const std::string& note : seen->notes) std::cout << "[ NOTE     ] " << note << "\n";
  }
  std::string all;
  for (const std::string& p : problems) all += "\n  - " + p;
  const std::string message = seen == nullptr ? "" : seen->message;
  // One line per case, for counting right verdicts and right first-line causes over the corpus.
  std::cout << "[ VERDICT  ] " << c.name << ": " << (problems.empty() ? "right" : "WRONG") << " ("
            << want.status << ")\n";
  if (!message.empty()) std::cout << "[ MESSAGE  ] " << message << "\n";
  if (want.known_failure.empty()) {
    EXPECT_TRUE(problems.empty()) << c.name << ":" << all << "\nmessage:\n" << message;
  } else if (problems.empty()) {
    ADD_FAILURE() << c.name << " is marked known_failure (\"" << want.known_failure
                  << "\") but now gets the expected verdict: remove the mark.";
  } else {
    std::cout << "[ KNOWN    ] " << c.name << ": " << want.known_failure << all << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, StudentCorpus, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<CorpusCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace labkit

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  labkit::SelectBackendFromArgs(argc, argv);
  return RUN_ALL_TESTS();
}
