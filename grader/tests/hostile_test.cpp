// Hostile submissions (hostile/<lab>/<case>/, each folder a submission plus expect.yaml) must each
// get the verdict and message written beside them, the grader must never crash or hang, and a
// whole class of them graded together (GradeBatch, two jobs, on tiled_any) must leave every other
// result intact. A case marked `known_failure` is a grader bug on record: the test expects it to go wrong
// and says so, and fails when it stops going wrong (remove the mark then). Runs on the backend
// given by --backend=cpu|gpu; without a GPU the gpu run skips every test with a message.
//
// expect.yaml: exercise (an exercise id, `all`, or `speed`), status, message (substrings),
// backend (any|cpu|gpu), cpu/gpu (overrides of exercise, status, message, known_failure there),
// known_failure, leftover_process (a process name that must not outlive grading), max_seconds,
// isolate (grade in a forked child in its own process group: the case attacks its parent),
// memory_limit_mib (the sandbox's memory limit for this case, lowered like the time limits so that
// a memory hog reaches it within them; the case skips where no memory limit can be enforced),
// needs_namespaces (the case needs bubblewrap's private view of the files, and skips where the
// sandbox has none: labgrade says so in its warning), absent_after (paths, outside the sandbox,
// that must not exist once the case is graded: where a link the submission left would have made
// labgrade write), symbol_check (false: built without the symbol allow-list, for a case that tests
// the sandbox or the report reader behind it; code that makes system calls without naming a
// library function gets that far), in_class (false: wrong code that attacks nothing a class graded
// together shares, such as a NaN written or a missing barrier; graded one by one only, and left out
// of the whole-class batch, which holds every case that attacks the grader, the machine, the files
// or the reports).
//
// The same runner grades a second corpus, the red team's (redteam/<lab>/<case>/, built as
// redteam_test): LABKIT_HOSTILE_DIR names the corpus, LABKIT_SHARED_DIR the folder of the shared
// correct kernels (hostile/common), and LABKIT_PENDING_LIST, where set, a file of cases
// ("name: the protection it waits for", or "name@cpu: ..." for one backend, one a line) that are
// skipped, saying what they wait for, until that protection lands (LABKIT_RUN_PENDING=1 in the
// environment runs them anyway).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <sstream>

#include "backend.h"
#include "batch.h"
#include "grade.h"
#include "lab_spec.h"
#include "manifest.h"
#include "test_backend.h"
#include "report.h"
#include "sandbox.h"
#include "scratch_dir.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;


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

  const Expectation& Expected() const { return BackendUnderTest() == Backend::kCpu ? cpu : gpu; }
};

void PrintTo(const HostileCase& c, std::ostream* os) { *os << c.lab << "/" << c.name; }

std::vector<std::string> Strings(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node)
    for (const auto& e : node) out.push_back(e.as<std::string>());
  return out;
}

Expectation Override(const Expectation& base, const YAML::Node& node) {
  Expectation e = base;
  if (!node) return e;
  if (node["exercise"]) e.exercise = node["exercise"].as<std::string>();
  if (node["status"]) e.status = node["status"].as<std::string>();
  if (node["message"]) e.message = Strings(node["message"]);
  if (node["known_failure"]) e.known_failure = node["known_failure"].as<std::string>();
  return e;
}

// The pending list: case name -> the protection it waits for.
std::map<std::string, std::string> PendingCases() {
  std::map<std::string, std::string> pending;
#ifdef LABKIT_PENDING_LIST
  std::ifstream in(LABKIT_PENDING_LIST);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(' ', colon + 1);
    pending[line.substr(0, colon)] = start == std::string::npos ? "" : line.substr(start);
  }
#endif
  return pending;
}

std::vector<HostileCase> LoadCases() {
  std::vector<HostileCase> cases;
  for (const auto& lab : fs::directory_iterator(LABKIT_HOSTILE_DIR)) {
    if (!lab.is_directory() || lab.path().filename() == "common") continue;
    for (const auto& dir : fs::directory_iterator(lab.path())) {
      const fs::path yaml = dir.path() / "expect.yaml";
      if (!fs::exists(yaml)) continue;
      const YAML::Node n = YAML::LoadFile(yaml.string());
      HostileCase c;
      c.lab = lab.path().filename().string();
      c.name = dir.path().filename().string();
      c.dir = dir.path().string();
      c.expect.exercise = n["exercise"].as<std::string>();
      c.expect.status = n["status"].as<std::string>();
      c.expect.message = Strings(n["message"]);
      if (n["known_failure"]) c.expect.known_failure = n["known_failure"].as<std::string>();
      c.cpu = Override(c.expect, n["cpu"]);
      c.gpu = Override(c.expect, n["gpu"]);
      if (n["backend"]) c.backend = n["backend"].as<std::string>();
      if (n["leftover_process"]) c.leftover_process = n["leftover_process"].as<std::string>();
      if (n["max_seconds"]) c.max_seconds = n["max_seconds"].as<double>();
      if (n["isolate"]) c.isolate = n["isolate"].as<bool>();
      if (n["needs_namespaces"]) c.needs_namespaces = n["needs_namespaces"].as<bool>();
      if (n["memory_limit_mib"]) c.memory_limit_mib = n["memory_limit_mib"].as<long long>();
      c.absent_after = Strings(n["absent_after"]);
      if (n["symbol_check"]) c.symbol_check = n["symbol_check"].as<bool>();
      if (n["in_class"]) c.in_class = n["in_class"].as<bool>();
      cases.push_back(c);
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const HostileCase& a, const HostileCase& b) { return a.name < b.name; });
  return cases;
}

// Pids of live processes called `name` (their /proc/PID/comm) whose environment mentions `marker`
// (empty: any): a case's work folder, which its commands' TMPDIR and HOME name, tells its processes
// from those of a class graded at the same time (ctest -j runs the batch test beside the cases).
std::vector<pid_t> ProcessesNamed(const std::string& name, const std::string& marker = "") {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "comm");
    std::string comm;
    std::getline(in, comm);
    if (comm != name) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');
    if (close != std::string::npos && text.size() > close + 2 && text[close + 2] == 'Z') continue;
    if (!marker.empty()) {
      std::ifstream environ(e.path() / "environ", std::ios::binary);
      const std::string env((std::istreambuf_iterator<char>(environ)),
                            std::istreambuf_iterator<char>());
      if (env.find(marker) == std::string::npos) continue;
    }
    found.push_back(static_cast<pid_t>(std::stol(pid)));
  }
  return found;
}


LabSpec LowLimits(LabSpec spec) {
  spec.limits.run_seconds = kRunSeconds;
  spec.limits.compile_seconds = kCompileSeconds;
  return spec;
}

// The verdict of one exercise (or the speed item) as text, for comparing and for messages.
struct Seen {
  std::string status, message;
  bool found = false;
};

std::vector<Seen> SeenFor(const nlohmann::json& result, const std::string& exercise) {
  std::vector<Seen> seen;
  if (exercise == "speed") {
    if (result.contains("speed") && result["speed"].is_object())
      seen.push_back(
          {result["speed"].value("status", ""), result["speed"].value("message", ""), true});
    return seen;
  }
  for (const auto& e : result.value("exercises", nlohmann::json::array()))
    if (exercise == "all" || e.value("id", "") == exercise)
      seen.push_back({e.value("status", ""), e.value("message", ""), true});
  return seen;
}

// Copies a case into `dest` as a student would hand it in: one self-contained folder. Cases share
// a correct kernel through "../../common/correct_kernels.cuh"; the sandbox shows a submission
// nothing outside its own folder, so the header is copied in and the include made local.
void CopySubmission(const fs::path& case_dir, const fs::path& dest) {
  static const std::string kShared = "../../common/correct_kernels.cuh";
  fs::create_directories(dest);
  for (const auto& entry : fs::directory_iterator(case_dir)) {
    if (entry.path().filename() == "expect.yaml") continue;
    fs::copy(entry.path(), dest / entry.path().filename(), fs::copy_options::recursive);
  }
  for (const auto& entry : fs::directory_iterator(dest)) {
    if (entry.path().extension() != ".cu") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(kShared);
    if (at == std::string::npos) continue;
    text.replace(at, kShared.size(), "correct_kernels.cuh");
    std::ofstream(entry.path(), std::ios::binary) << text;
    fs::copy_file(fs::path(LABKIT_SHARED_DIR) / "correct_kernels.cuh", dest / "correct_kernels.cuh",
                  fs::copy_options::overwrite_existing);
  }
}

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

class HostileCaseTest : public Hostile, public ::testing::WithParamInterface<HostileCase> {
 protected:
  // Grades in this process, or in a forked child in its own process group (`isolate`), and
  // returns the result as ToJson writes it (a result that cannot be written is itself a problem).
  // `scratch` holds the submission (src/<case>) and the grading's work folder (work/), whose
  // path also marks the processes of this grading (see ProcessesNamed).
  nlohmann::json Grade(const HostileCase& c, const ScratchDir& scratch,
                       std::vector<std::string>& problems) {
    const LabSpec spec = Spec(c.lab);
    GradeRequest request;
    const fs::path src = scratch / "src" / c.name;
    CopySubmission(c.dir, src);
    request.src_dir = src.string();
    request.submission_name = c.name;
    request.backend = BackendUnderTest();
    request.seed = 20261122;
    request.work_dir = (scratch / "work").string();
    request.check_symbols = c.symbol_check;
    auto grade_to_text = [&](std::string& text) {
      // The sandbox labgrade itself uses: these cases test the grader as a student meets it.
      SandboxPolicy policy =
          GradingSandboxPolicy(manifest_, spec.id, request.src_dir, request.work_dir);
      if (c.memory_limit_mib > 0) policy.memory_bytes = c.memory_limit_mib << 20;
      SandboxedProcessRunner runner(policy);
      const GradeResult result = GradeSubmission(runner, manifest_, spec, request);
      try {
        text = ToJson(result).dump(2);
        ToGradescope(result).dump(2);
        return std::string();
      } catch (const std::exception& e) {
        return std::string("the result cannot be written as JSON: ") + e.what();
      }
    };
    std::string text;
    if (!c.isolate) {
      const std::string why = grade_to_text(text);
      if (!why.empty()) problems.push_back(why);
    } else {
      const fs::path out = scratch / "result.json";
      const pid_t child = fork();
      if (child == 0) {
        setpgid(0, 0);
        std::string json;
        const std::string why = grade_to_text(json);
        std::ofstream(out) << (why.empty() ? json : why);
        _exit(why.empty() ? 0 : 1);
      }
      int status = 0;
      waitpid(child, &status, 0);
      std::ifstream in(out);
      std::stringstream s;
      s << in.rdbuf();
      text = s.str();
      if (WIFSIGNALED(status))
        problems.push_back("the grader was killed by signal " + std::to_string(WTERMSIG(status)) +
                           " while grading this submission");
      else if (WEXITSTATUS(status) != 0)
        problems.push_back(text);
    }
    fs::remove_all(request.work_dir);
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) return nlohmann::json::object();
    return json;
  }
};

TEST_P(HostileCaseTest, GetsTheExpectedVerdict) {
  const HostileCase& c = GetParam();
  if (c.backend != "any" && c.backend != ToString(BackendUnderTest()))
    GTEST_SKIP() << c.name << " is for the " << c.backend << " backend only";
  const SandboxedProcessRunner probe(SystemSandboxPolicy(fs::temp_directory_path().string()));
  if (c.memory_limit_mib > 0 && !probe.memory_limited())
    GTEST_SKIP() << c.name << " needs a memory limit, and none can be enforced here:\n"
                 << probe.Warning();
  if (c.needs_namespaces && !probe.namespaces())
    GTEST_SKIP() << c.name << " needs the sandbox's private view of the files (bubblewrap), "
                 << "and there is none here:\n"
                 << probe.Warning();
  static const std::map<std::string, std::string> pending = PendingCases();
  auto waits = pending.find(c.name + "@" + ToString(BackendUnderTest()));
  if (waits == pending.end()) waits = pending.find(c.name);
  const char* run_pending = std::getenv("LABKIT_RUN_PENDING");
  if (waits != pending.end() && !(run_pending && std::string(run_pending) == "1"))
    GTEST_SKIP() << c.name << " is pending: it needs " << waits->second
                 << " (listed in PENDING.txt; LABKIT_RUN_PENDING=1 runs it)";
  const Expectation& want = c.Expected();
  std::vector<std::string> problems;
  for (const std::string& path : c.absent_after) fs::remove(path);
  const ScratchDir scratch("labkit_hostile_" + c.name);
  const auto started = std::chrono::steady_clock::now();
  const nlohmann::json result = Grade(c, scratch, problems);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const std::vector<Seen> seen = SeenFor(result, want.exercise);
  if (seen.empty() && problems.empty()) problems.push_back("no result for '" + want.exercise + "'");
  for (const Seen& s : seen) {
    if (s.status != want.status)
      problems.push_back("status " + s.status + ", expected " + want.status + "; message:\n" +
                         s.message);
    for (const std::string& m : want.message)
      if (s.message.find(m) == std::string::npos)
        problems.push_back("expected '" + m + "' in the message:\n" + s.message);
  }
  for (const std::string& path : c.absent_after) {
    std::error_code ec;
    if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) continue;
    problems.push_back("labgrade wrote " + path + ", through a link the submission left");
    fs::remove(path, ec);
  }
  if (c.max_seconds > 0 && seconds > c.max_seconds)
    problems.push_back("grading took " + std::to_string(int(seconds)) + " s, more than " +
                       std::to_string(int(c.max_seconds)) + " s");
  if (!c.leftover_process.empty()) {
    // SIGKILL is delivered asynchronously: give a process already killed a moment to be gone.
    const std::string work_dir = (scratch / "work").string();
    std::vector<pid_t> left = ProcessesNamed(c.leftover_process, work_dir);
    for (int i = 0; i < 20 && !left.empty(); ++i) {
      usleep(100'000);
      left = ProcessesNamed(c.leftover_process, work_dir);
    }
    if (!left.empty())
      problems.push_back(std::to_string(left.size()) + " process(es) named '" + c.leftover_process +
                         "' outlived the grading");
    for (pid_t pid : left) kill(pid, SIGKILL);  // started by this test's submission
  }

  std::string all;
  for (const std::string& p : problems) all += "\n  - " + p;
  const std::string& known_failure = want.known_failure;
  if (known_failure.empty()) {
    EXPECT_TRUE(problems.empty()) << c.name << " (" << int(seconds) << " s):" << all;
  } else if (problems.empty()) {
    ADD_FAILURE() << c.name << " is marked known_failure (\"" << known_failure
                  << "\") but now gets the expected verdict: remove the mark.";
  } else {
    std::cout << "[ KNOWN    ] " << c.name << ": " << known_failure << all << "\n";
    RecordProperty("known_failure", known_failure);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileCaseTest, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<HostileCase>& info) {
                           return info.param.name;
                         });

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

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  labkit::SelectBackendFromArgs(argc, argv);
  return RUN_ALL_TESTS();
}
