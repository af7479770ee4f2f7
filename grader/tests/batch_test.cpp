// Batch grading must lose nothing: a batch killed with SIGKILL resumes with the same command and
// redoes nothing finished; a grader fault is "not graded" and retried, never a student's zero.
// Runs on the CPU backend (CI).
#include "batch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "journal.h"
#include "lab_spec.h"
#include "manifest.h"
#include "report.h"
#include "scratch_dir.h"

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
    scratch_ = std::make_unique<ScratchDir>(
        "labkit_batch_" +
        std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    root_ = scratch_->path();
    const fs::path lab = fs::path(manifest_.source_dir);
    // alice and unlucky hand in the reference solution, bob and carol the untouched starter: the
    // tests of the batch's bookkeeping (resume, regrade, kill) need graded submissions, not right
    // ones, and the starter is graded in about half the time (CI has two cores).
    for (const char* name : {"alice", "bob", "carol", "unlucky"}) {
      fs::create_directories(root_ / "class" / name);
      const bool good = std::string(name) == "alice" || std::string(name) == "unlucky";
      fs::copy_file(lab / (good ? "solutions" : "starter") / "03_tiled_matmul" / "matmul.cu",
                    root_ / "class" / name / "matmul.cu");
    }
    auto spec = LoadLabSpec(manifest_.LabDir("03_tiled_matmul"));
    ASSERT_TRUE(spec.ok());
    spec_ = *spec;
  }

  // Keeps only `names` of the class (each test grades no more than it needs: CI has two cores).
  void KeepOnly(const std::vector<std::string>& names) {
    std::vector<fs::path> others;
    for (const auto& entry : fs::directory_iterator(root_ / "class"))
      if (std::find(names.begin(), names.end(), entry.path().filename()) == names.end())
        others.push_back(entry.path());
    for (const fs::path& p : others) fs::remove_all(p);
  }

  // `argv` run in `cwd`, stdout and stderr to `log`; the exit status.
  static int RunIn(const fs::path& cwd, const std::vector<std::string>& args, const fs::path& log) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (chdir(cwd.c_str()) != 0) _exit(126);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      freopen(log.c_str(), "w", stdout);
      dup2(fileno(stdout), 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  std::unique_ptr<ScratchDir> scratch_;
  fs::path root_;
};

// Refuses to start the harness for one submission, as if the kit's own program were missing:
// always, or only its first `times` starts (a fault of the moment, such as a busy GPU).
class FaultyRunner : public ProcessRunner {
 public:
  explicit FaultyRunner(std::string victim, int times = -1)
      : victim_(std::move(victim)), times_(times) {}
  ProcessResult Run(const Command& command) override {
    // The harness may be wrapped (bwrap ... harness REQUEST RESPONSE): look at every word.
    bool harness = false;
    for (const std::string& word : command.argv)
      harness = harness || fs::path(word).filename() == "harness";
    if (harness && command.cwd.find(victim_) != std::string::npos && times_ != 0) {
      if (times_ > 0) --times_;
      ProcessResult r;
      r.start_error = "simulated: the harness program vanished";
      return r;
    }
    return real_.Run(command);
  }

 private:
  std::string victim_;
  int times_;
  SystemProcessRunner real_;
};

TEST_F(BatchTest, GraderFaultIsNotGradedAndRetriedOnResume) {
  KeepOnly({"bob", "unlucky"});
  FaultyRunner faulty("unlucky");
  auto first = GradeBatch(faulty, manifest_, spec_, Options());
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->graded, 1);
  EXPECT_EQ(first->not_graded, 1);
  const std::string csv = ReadFile(root_ / "out" / "gradebook.csv");
  EXPECT_NE(csv.find("unlucky,not_graded,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("simulated: the harness program vanished"), std::string::npos) << csv;
  EXPECT_NE(csv.find("bob,graded,0,0,,0,100,"), std::string::npos) << csv;

  SystemProcessRunner healthy;
  auto second = GradeBatch(healthy, manifest_, spec_, Options());
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->skipped, 1);  // the graded one is not redone
  EXPECT_EQ(second->graded, 1);
  EXPECT_NE(ReadFile(root_ / "out" / "gradebook.csv").find("unlucky,graded,30,40"),
            std::string::npos);
}

// A fault of the moment is graded once more before the batch ends, with the class's load gone:
// the instructor need not resume for it.
TEST_F(BatchTest, AGraderFaultOfTheMomentIsGradedAgainBeforeTheBatchEnds) {
  KeepOnly({"bob", "unlucky"});
  FaultyRunner once("unlucky", 1);
  auto batch = GradeBatch(once, manifest_, spec_, Options());
  ASSERT_TRUE(batch.ok()) << batch.error();
  EXPECT_EQ(batch->graded, 2);
  EXPECT_EQ(batch->not_graded, 0);
  EXPECT_NE(ReadFile(root_ / "out" / "gradebook.csv").find("unlucky,graded,30,40"),
            std::string::npos);
}

// The README's command word for word, run from the folder that holds class/: relative paths once
// reached the compiler as they were, from another folder ("cc1plus: fatal error:
// class/ana/matmul.cu: No such file"), and every folder scored 0.
TEST_F(BatchTest, RelativePathsExactlyAsInTheReadme) {
  KeepOnly({"alice", "bob"});
  const int status = RunIn(root_,
                           {LABKIT_LABGRADE_PATH, "grade", "03_tiled_matmul", "--submissions",
                            "class/", "--out", "marks/", "--jobs", "16"},
                           root_ / "log");
  EXPECT_EQ(status, 0) << ReadFile(root_ / "log");
  const std::string csv = ReadFile(root_ / "marks" / "gradebook.csv");
  EXPECT_NE(csv.find("\nalice,graded,30,40,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nbob,graded,0,0,"), std::string::npos) << csv;
  for (const char* file : {"results/alice/feedback.txt", "results/alice/feedback.html",
                           "results/bob/feedback.txt", "class.html", "summary.txt"})
    EXPECT_TRUE(fs::exists(root_ / "marks" / file)) << file;
  EXPECT_NE(ReadFile(root_ / "marks" / "results" / "bob" / "feedback.txt").find("total"),
            std::string::npos);
}

// A resumed batch grades on the inputs it started with: the seed is in the journal, and a
// different --seed is refused rather than grade one class on two input sets.
TEST_F(BatchTest, ResumeKeepsTheSeed) {
  KeepOnly({"unlucky"});
  FaultyRunner faulty("unlucky");
  BatchOptions first = Options();
  first.kit_version = "test-1";
  ASSERT_TRUE(GradeBatch(faulty, manifest_, spec_, first).ok());
  auto journal = Journal::Open((root_ / "out" / "journal.jsonl").string());
  ASSERT_TRUE(journal.ok());
  ASSERT_TRUE(journal->batch().has_value());
  EXPECT_EQ(journal->batch()->seed, 7u);
  EXPECT_EQ(journal->batch()->kit_version, "test-1");

  SystemProcessRunner healthy;
  BatchOptions resumed = first;
  resumed.seed = 99;  // what main draws when --seed is not given
  auto counts = GradeBatch(healthy, manifest_, spec_, resumed);
  ASSERT_TRUE(counts.ok()) << counts.error();
  EXPECT_EQ(counts->graded, 1);
  const auto unlucky =
      nlohmann::json::parse(ReadFile(root_ / "out" / "results" / "unlucky" / "result.json"));
  EXPECT_EQ(unlucky["seed"], "7") << "the resumed submission was graded on other inputs";

  resumed.seed_given = true;  // --seed 99 on the command line
  resumed.regrade = {"unlucky"};
  EXPECT_EQ(GradeBatch(healthy, manifest_, spec_, resumed).error(),
            "this batch was started with seed 7 (journal.jsonl); grading the rest with --seed 99 "
            "would grade one class on two input sets. Leave out --seed to resume, or use a new "
            "--out");
  BatchOptions newer = first;
  newer.kit_version = "test-2";
  EXPECT_EQ(GradeBatch(healthy, manifest_, spec_, newer).error(),
            "this batch was graded by labkit test-1 (journal.jsonl) and this is labkit test-2: "
            "--regrade all grades everyone again with this version (same seed), or use a new "
            "--out");
}

// Every command of one student "hangs" until its time limit (as a submission that stalls each
// step would): the submission's overall limit stops it, not the batch.
class StallingRunner : public ProcessRunner {
 public:
  explicit StallingRunner(std::string victim) : victim_(std::move(victim)) {}
  ProcessResult Run(const Command& command) override {
    bool victim = command.cwd.find(victim_) != std::string::npos;
    for (const std::string& word : command.argv)
      victim = victim || word.find("/" + victim_ + "/") != std::string::npos;
    if (!victim) return real_.Run(command);
    std::this_thread::sleep_for(std::chrono::duration<double>(command.timeout_seconds));
    ProcessResult r;
    r.started = true;
    r.timed_out = true;
    r.seconds = command.timeout_seconds;
    return r;
  }

 private:
  std::string victim_;
  SystemProcessRunner real_;
};

std::string RowOf(const std::string& csv, const std::string& name) {
  const auto at = csv.find("\n" + name + ",");
  return at == std::string::npos ? "" : csv.substr(at + 1, csv.find('\r', at) - at - 1);
}

// A class with a FIFO where the source should be, a symbolic link instead of a source file, a
// FIFO named like an archive, a linked folder, a kernel that never ends and a submission that
// stalls at every step: the batch finishes, each gets its verdict, the good one its points.
TEST_F(BatchTest, HostileFilesAndHangsDoNotStallTheBatch) {
  KeepOnly({"alice"});
  const fs::path klass = root_ / "class";
  const fs::path lab = fs::path(manifest_.source_dir);
  fs::create_directories(klass / "fifo");
  ASSERT_EQ(mkfifo((klass / "fifo" / "matmul.cu").c_str(), 0644), 0);
  fs::create_directories(klass / "link");
  fs::create_symlink(lab / "solutions" / "03_tiled_matmul" / "matmul.cu",
                     klass / "link" / "matmul.cu");
  ASSERT_EQ(mkfifo((klass / "eve.zip").c_str(), 0644), 0);
  fs::create_directory_symlink(klass / "alice", klass / "mallory");
  // The reference solution with a kernel that never ends (the CPU backend runs it as written).
  fs::create_directories(klass / "hang");
  std::string hang = ReadFile(lab / "solutions" / "03_tiled_matmul" / "matmul.cu");
  const std::string phases = "  const int phases = (n - 1) / TILE + 1;\n";
  ASSERT_NE(hang.find(phases), std::string::npos);
  hang.replace(hang.find(phases), phases.size(),
               phases + "  volatile int spin = 1;\n  while (spin) {\n  }\n");
  std::ofstream(klass / "hang" / "matmul.cu") << hang;
  fs::create_directories(klass / "stall");
  fs::copy_file(lab / "solutions" / "03_tiled_matmul" / "matmul.cu", klass / "stall" / "matmul.cu");

  // The stalling student's first compile waits out the 40 s left of its overall limit.
  spec_.limits.run_seconds = 5;
  spec_.limits.compile_seconds = 60;
  BatchOptions options = Options();
  options.jobs = 3;
  options.submission_seconds = 40;
  StallingRunner runner("stall");
  const auto start = std::chrono::steady_clock::now();
  auto counts = GradeBatch(runner, manifest_, spec_, options);
  ASSERT_TRUE(counts.ok()) << counts.error();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(100));
  const std::string csv = ReadFile(root_ / "out" / "gradebook.csv");
  EXPECT_EQ(RowOf(csv, "alice").rfind("alice,graded,30,40,", 0), 0u) << csv;
  EXPECT_NE(
      RowOf(csv, "fifo").find("graded,0,0,,0,100,,rows:unreadable_file; tiled:unreadable_file"),
      std::string::npos)
      << csv;
  EXPECT_NE(
      RowOf(csv, "link").find("graded,0,0,,0,100,,rows:unreadable_file; tiled:unreadable_file"),
      std::string::npos)
      << csv;
  EXPECT_NE(RowOf(csv, "hang").find("tiled_any:timeout"), std::string::npos) << csv;
  EXPECT_NE(RowOf(csv, "stall").find("not_graded"), std::string::npos) << csv;
  EXPECT_NE(RowOf(csv, "stall").find("overall time limit of 40 s"), std::string::npos) << csv;
  EXPECT_NE(RowOf(csv, "mallory").find("not_graded"), std::string::npos) << csv;
  EXPECT_NE(RowOf(csv, "mallory").find("symbolic link"), std::string::npos) << csv;
  EXPECT_NE(RowOf(csv, "eve").find("not a regular file"), std::string::npos) << csv;
  const std::string feedback = ReadFile(root_ / "out" / "results" / "fifo" / "feedback.txt");
  EXPECT_NE(feedback.find("is not a regular file (a FIFO)"), std::string::npos) << feedback;
}

TEST_F(BatchTest, RegradeRedoesOnlyWhatIsAsked) {
  KeepOnly({"bob", "carol"});
  SystemProcessRunner runner;
  ASSERT_TRUE(GradeBatch(runner, manifest_, spec_, Options()).ok());
  BatchOptions again = Options();
  again.regrade = {"carol"};
  auto counts = GradeBatch(runner, manifest_, spec_, again);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->graded, 1);
  EXPECT_EQ(counts->skipped, 1);
  const std::string journal = ReadFile(root_ / "out" / "journal.jsonl");
  EXPECT_EQ(CountLines(journal, "\"slug\":\"bob\""), 1) << journal;
  EXPECT_EQ(CountLines(journal, "\"slug\":\"carol\""), 2) << journal;
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
