// A whole class of hostile submissions graded together (GradeBatch, two jobs, on tiled_any) must
// leave every other result intact: the good student keeps every point. Built into hostile_test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "batch.h"
#include "hostile_corpus.h"
#include "process.h"
#include "scratch_dir.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// A name for case `c` as a student's folder in the class: spaces, accents, CJK and a quote
// included, so that slugs, paths and the gradebook are tested on names like real ones.
std::string StudentName(std::size_t i, const std::string& name) {
  static const char* const kPeople[] = {"Seán O'Neill", "Zoë Ødegård", "Jean-Luc Ñúñez",
                                        "Ünal Çelik", "Bo Li 张伟"};
  return std::string(kPeople[i % 5]) + " " + std::to_string(i) + " " + name;
}

TEST_F(Hostile, WholeClassOfHostileSubmissionsIsGradedAndTheGoodOneKeepsItsPoints) {
  const std::vector<HostileCase> cases = LoadCases();
  const ScratchDir scratch("labkit_hostile_batch");
  const fs::path root = scratch.path();
  const fs::path klass = root / "class";
  fs::create_directories(klass);
  std::vector<std::string> names;
  std::vector<std::string> known;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const HostileCase& c = cases[i];
    if (c.lab != "03_tiled_matmul" || !c.in_class) continue;
    if (c.backend != "any" && c.backend != ToString(BackendUnderTest())) continue;
    const std::string name = StudentName(i, c.name);
    CopySubmission(c.dir, klass / name);
    names.push_back(name);
    if (!c.Expected().known_failure.empty())
      known.push_back(c.name + ": " + c.Expected().known_failure);
  }
  const std::string good = "Ana María O'Brien 李";
  fs::create_directories(klass / good);
  fs::copy_file(fs::path(manifest_.source_dir) / "solutions" / "03_tiled_matmul" / "matmul.cu",
                klass / good / "matmul.cu");
  names.push_back(good);

  // The class is graded on tiled_any alone (with speed, which times it): every case's attack is in
  // its matmul_tiled_any or comes before any exercise runs (the compiler, static initialisers),
  // while its rows and tiled are the shared correct kernels of hostile/common, the same in every
  // case. Grading those too cost builds' worth of runs that asserted nothing (CI has two cores).
  const auto spec_or = OnlyExercise(Spec("03_tiled_matmul"), "tiled_any");
  ASSERT_TRUE(spec_or.ok()) << spec_or.error();
  const LabSpec spec = *spec_or;
  BatchOptions options;
  options.submissions_dir = klass.string();
  options.out_dir = (root / "out").string();
  options.jobs = 2;
  options.backend = BackendUnderTest();
  options.seed = 7;
  // In a child of its own process group: a submission that kills its grader (and the grader's
  // group) must not take this test with it. Run again (the journal resumes) while it is killed.
  // A case that attacks its grader (`isolate`) and is a known failure is taken out of the class
  // when it kills the batch, and the batch resumes (the journal keeps what was finished).
  std::vector<std::string> killers;
  int killed = 0;
  for (int run = 0; run < 3; ++run) {
    const pid_t child = fork();
    if (child == 0) {
      setpgid(0, 0);
      SystemProcessRunner runner;
      const auto counts = GradeBatch(runner, manifest_, spec, options);
      _exit(counts.ok() ? 0 : 2);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0) << "GradeBatch returned an error";
      break;
    }
    ++killed;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string name = StudentName(i, cases[i].name);
      if (!cases[i].isolate || cases[i].Expected().known_failure.empty()) continue;
      if (!fs::exists(klass / name)) continue;
      fs::remove_all(klass / name);
      names.erase(std::remove(names.begin(), names.end(), name), names.end());
      killers.push_back(cases[i].name);
    }
  }
  for (const char* name : {"hostile_bomb", "hostile_escape"})
    for (pid_t pid : ProcessesNamed(name)) kill(pid, SIGKILL);
  std::string known_text;
  for (const std::string& k : known) known_text += "\n  - " + k;
  if (killed > 0 && !killers.empty()) {
    std::cout << "[ KNOWN    ] the batch was killed " << killed << " time(s); taken out of the "
              << "class and resumed without:";
    for (const std::string& k : killers) std::cout << " " << k;
    std::cout << "\n";
  } else {
    EXPECT_EQ(killed, 0) << "the batch was killed " << killed
                         << " time(s) by a submission; cases marked known_failure:" << known_text;
  }

  std::ifstream in(root / "out" / "gradebook.csv");
  std::stringstream s;
  s << in.rdbuf();
  const std::string csv = s.str();
  // Each row starts with the student's name (CsvField quotes none of these names).
  auto row_of = [&](const std::string& name) {
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(name + ",", 0) == 0) return line;
    return std::string();
  };
  for (const std::string& name : names)
    EXPECT_NE(row_of(name), "") << name << " is missing from the gradebook:\n" << csv;
  // tiled_any's 40 correctness points in full.
  EXPECT_EQ(row_of(good).rfind(good + ",graded,40,", 0), 0u)
      << "the good student's row: " << row_of(good) << "\n"
      << csv;
  std::cout << "gradebook:\n" << csv;
}

}  // namespace
}  // namespace labkit
