// Batch grading must lose nothing: a batch killed with SIGKILL resumes with the same command and
// redoes nothing finished; a grader fault is "not graded" and retried, never a student's zero.
// Runs on the CPU backend (CI).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "batch.h"
#include "lab_spec.h"
#include "manifest.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

class BatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest_, error)) << error;
    if (!manifest_.emu_backend) GTEST_SKIP() << "this build has no CPU backend";
    root_ = fs::temp_directory_path() / ("labkit_batch_" + std::string(
        ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    const fs::path lab = fs::path(manifest_.source_dir);
    for (const char* name : {"alice", "bob", "carol", "unlucky"}) {
      fs::create_directories(root_ / "class" / name);
      const bool good = std::string(name) != "bob";  // bob hands in the untouched starter
      fs::copy_file(lab / (good ? "solutions" : "starter") / "03_tiled_matmul" / "matmul.cu",
                    root_ / "class" / name / "matmul.cu");
    }
    auto spec = LoadLabSpec(manifest_.LabDir("03_tiled_matmul"));
    ASSERT_TRUE(spec.ok());
    spec_ = *spec;
  }

  BatchOptions Options() const {
    BatchOptions o;
    o.submissions_dir = (root_ / "class").string();
    o.out_dir = (root_ / "out").string();
    o.jobs = 1;
    o.seed = 7;
    return o;
  }

  Manifest manifest_;
  LabSpec spec_;
  fs::path root_;
};

// Refuses to start the harness for one submission, as if the kit's own program were missing.
class FaultyRunner : public ProcessRunner {
 public:
  explicit FaultyRunner(std::string victim) : victim_(std::move(victim)) {}
  ProcessResult Run(const Command& command) override {
    // The harness may be wrapped (bwrap ... harness REQUEST RESPONSE): look at every word.
    bool harness = false;
    for (const std::string& word : command.argv)
      harness = harness || fs::path(word).filename() == "harness";
    if (harness && command.cwd.find(victim_) != std::string::npos) {
      ProcessResult r;
      r.start_error = "simulated: the harness program vanished";
      return r;
    }
    return real_.Run(command);
  }

 private:
  std::string victim_;
  SystemProcessRunner real_;
};

TEST_F(BatchTest, GraderFaultIsNotGradedAndRetriedOnResume) {
  FaultyRunner faulty("unlucky");
  auto first = GradeBatch(faulty, manifest_, spec_, Options());
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->graded, 3);
  EXPECT_EQ(first->not_graded, 1);
  const std::string csv = ReadFile(root_ / "out" / "gradebook.csv");
  EXPECT_NE(csv.find("unlucky,not_graded,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("simulated: the harness program vanished"), std::string::npos) << csv;
  EXPECT_NE(csv.find("alice,graded,30,40,not measured,70,100,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("bob,graded,0,0,not measured,0,100,"), std::string::npos) << csv;

  SystemProcessRunner healthy;
  auto second = GradeBatch(healthy, manifest_, spec_, Options());
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->skipped, 3);  // the graded ones are not redone
  EXPECT_EQ(second->graded, 1);
  EXPECT_NE(ReadFile(root_ / "out" / "gradebook.csv").find("unlucky,graded,30,40"),
            std::string::npos);
}

TEST_F(BatchTest, RegradeRedoesOnlyWhatIsAsked) {
  SystemProcessRunner runner;
  ASSERT_TRUE(GradeBatch(runner, manifest_, spec_, Options()).ok());
  BatchOptions again = Options();
  again.regrade = {"carol"};
  auto counts = GradeBatch(runner, manifest_, spec_, again);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->graded, 1);
  EXPECT_EQ(counts->skipped, 3);
}

TEST_F(BatchTest, SigkillMidBatchLosesNothingAndRedoesNothing) {
  const fs::path out = root_ / "out";
  const std::vector<std::string> args = {LABKIT_LABGRADE_PATH, "grade", "03_tiled_matmul",
                                         "--submissions", (root_ / "class").string(), "--out",
                                         out.string(), "--jobs", "1", "--seed", "7",
                                         "--backend", "cpu"};
  auto launch = [&] {
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      freopen("/dev/null", "w", stderr);
      freopen("/dev/null", "w", stdout);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  };
  // First run: killed, with everything it started, as soon as one submission is recorded.
  const pid_t first = launch();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (CountLines(ReadFile(out / "journal.jsonl"), "\"status\":\"graded\"") < 1 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(-first, SIGKILL);
  int status = 0;
  waitpid(first, &status, 0);
  const int recorded = CountLines(ReadFile(out / "journal.jsonl"), "\"status\":\"graded\"");
  ASSERT_GE(recorded, 1);
  ASSERT_LT(recorded, 4) << "the batch finished before it could be killed; nothing was tested";

  // Second run, same command: finishes the rest.
  const pid_t second = launch();
  waitpid(second, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string journal = ReadFile(out / "journal.jsonl");
  for (const char* name : {"alice", "bob", "carol", "unlucky"})
    EXPECT_EQ(CountLines(journal, "\"slug\":\"" + std::string(name) + "\""), 1)
        << name << " should be graded exactly once:\n" << journal;
  const std::string csv = ReadFile(out / "gradebook.csv");
  EXPECT_EQ(CountLines(csv, ",graded,"), 4) << csv;
  for (const char* name : {"alice", "bob", "carol", "unlucky"})
    EXPECT_TRUE(fs::exists(out / "results" / name / "result.json")) << name;
}

}  // namespace
}  // namespace labkit
