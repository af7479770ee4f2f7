// The hostile corpus (hostile/<lab>/<case>/, each folder a submission plus expect.yaml) and the
// red team's, read the same way.
//
// expect.yaml: exercise (an exercise id, `all`, or `speed`), status, message (substrings),
// backend (any|cpu|gpu), cpu/gpu (overrides of exercise, status, message, known_failure there),
// known_failure, leftover_process (a process name that must not outlive grading), max_seconds,
// isolate (grade in a forked child in its own process group: the case attacks its parent),
// run_seconds (this case's limit on each run, above the corpus's low one: a run that is slow by
// design, not an endless loop), memory_limit_mib (the sandbox's memory limit for this case, lowered
// like the time limits so that a memory hog reaches it within them; the case skips where no memory
// limit can be enforced), needs_namespaces (the case needs bubblewrap's private view of the files,
// and skips where the sandbox has none: labgrade says so in its warning), absent_after (paths,
// outside the sandbox, that must not exist once the case is graded: where a link the submission
// left would have made labgrade write), symbol_check (false: built without the symbol allow-list,
// for a case that tests the sandbox or the report reader behind it; code that makes system calls
// without naming a library function gets that far), in_class (false: wrong code that attacks
// nothing a class graded together shares, such as a NaN written or a missing barrier; graded one by
// one only, and left out of the whole-class batch, which holds every case that attacks the grader,
// the machine, the files or the reports).
//
// The same runner grades a second corpus, the red team's (redteam/<lab>/<case>/, built as
// redteam_test): LABKIT_HOSTILE_DIR names the corpus, LABKIT_SHARED_DIR the folder of the shared
// correct kernels (hostile/common), and LABKIT_PENDING_LIST, where set, a file of cases
// ("name: the protection it waits for", or "name@cpu: ..." for one backend, one a line) that are
// skipped, saying what they wait for, until that protection lands (LABKIT_RUN_PENDING=1 in the
// environment runs them anyway).
//
// hostile_corpus: the corpus read from its folders, and what the tests that grade it share
// (hostile_test.cpp grades each case, hostile_class_test.cpp the whole class at once).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "backend.h"
#include "lab_spec.h"
#include "manifest.h"
#include "test_backend.h"

namespace labkit {

// Low limits, so that the endless loops and compile bombs cost seconds, not minutes (a correct
// submission's slowest run on the CPU backend takes about a second on CI's two cores).
constexpr double kRunSeconds = 5;
constexpr double kCompileSeconds = 10;

struct Expectation {
  std::string exercise, status;
  std::vector<std::string> message;
  std::string known_failure;
};

struct HostileCase {
  std::string lab, name, dir, backend = "any", leftover_process;
  std::vector<std::string> absent_after;
  Expectation expect, cpu, gpu;
  double max_seconds = 0;
  bool isolate = false;
  bool needs_namespaces = false;
  bool symbol_check = true;
  bool in_class = true;
  long long memory_limit_mib = 0;  // 0: the sandbox's own
  double run_seconds = 0;          // 0: kRunSeconds

  const Expectation& Expected() const { return BackendUnderTest() == Backend::kCpu ? cpu : gpu; }
};

void PrintTo(const HostileCase& c, std::ostream* os);

// The pending list: case name -> the protection it waits for.
std::map<std::string, std::string> PendingCases();
// Every case of the corpus (LABKIT_HOSTILE_DIR), by name.
std::vector<HostileCase> LoadCases();

// Pids of live processes called `name` (their /proc/PID/comm) whose environment mentions `marker`
// (empty: any): a case's work folder, which its commands' TMPDIR and HOME name, tells its processes
// from those of a class graded at the same time (ctest -j runs the batch test beside the cases).
std::vector<pid_t> ProcessesNamed(const std::string& name, const std::string& marker = "");

// Copies a case into `dest` as a student would hand it in: one self-contained folder. Cases share
// a correct kernel through "../../common/correct_kernels.cuh"; the sandbox shows a submission
// nothing outside its own folder, so the header is copied in and the include made local.
void CopySubmission(const std::filesystem::path& case_dir, const std::filesystem::path& dest);

// `spec` with the low limits above.
LabSpec LowLimits(LabSpec spec);

class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest_, error)) << error;
    if (const std::string why = WhyBackendUnavailable(manifest_); !why.empty()) GTEST_SKIP() << why;
  }

  LabSpec Spec(const std::string& lab) {
    auto spec = LoadLabSpec(manifest_.LabDir(lab));
    EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error());
    return spec.ok() ? LowLimits(*spec) : LabSpec{};
  }

  Manifest manifest_;
};

}  // namespace labkit
