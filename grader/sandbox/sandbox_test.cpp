// The sandbox with the real runner on this machine. Each test that needs a feature this machine
// lacks (bubblewrap, a writable cgroup) skips and says why.
#include "gpu_gate.h"
#include "sandbox.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace labkit {
namespace {
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "labgrade-sandbox-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Fixture {
  TempDir root;  // outside/, scratch/, kit/ (read-only), kit/secret/ (hidden)
  std::string scratch = root.path() + "/scratch";
  std::string kit = root.path() + "/kit";
  std::string secret = root.path() + "/kit/secret";
  std::string outside = root.path() + "/outside";
  Fixture() {
    for (const std::string& dir : {scratch, kit, secret, outside}) fs::create_directories(dir);
    std::ofstream(kit + "/visible.txt") << "shown\n";
    std::ofstream(secret + "/answer.txt") << "the reference solution\n";
    std::ofstream(outside + "/other_student.cu") << "someone else's work\n";
  }
  SandboxPolicy Policy() const {
    SandboxPolicy policy = SystemSandboxPolicy(scratch);
    policy.read_only = {kit};
    policy.hidden = {secret};
    policy.memory_bytes = 256LL << 20;
    policy.max_tasks = 64;
    return policy;
  }
};

Command Shell(const std::string& script, double timeout = 10) {
  Command cmd;
  cmd.argv = {"/bin/sh", "-c", script};
  cmd.timeout_seconds = timeout;
  return cmd;
}

std::string UniqueToken() {
  return "labgrade-sandbox-marker-" + std::to_string(getpid()) + "-" +
         std::to_string(std::random_device{}());
}

// Processes whose command line mentions `token` (a fork bomb's children keep their parent's).
int ProcessesWith(const std::string& token) {
  int count = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(token) != std::string::npos) ++count;
  }
  return count;
}

bool HasTaskBound(const SandboxedProcessRunner& runner) {
  for (const std::string& item : runner.enforced())
    if (item.rfind("process", 0) == 0) return true;
  return false;
}

bool Enforces(const SandboxedProcessRunner& runner, const std::string& prefix) {
  for (const std::string& item : runner.enforced())
    if (item.rfind(prefix, 0) == 0) return true;
  return false;
}

#define REQUIRE_NAMESPACES(runner)                                                      \
  if (!(runner).namespaces())                                                           \
  GTEST_SKIP() << "bubblewrap does not work here, so this isolation is not enforced:\n" \
               << (runner).Warning()

TEST(Sandbox, RunsACommandAndKeepsItsExitStatus) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  const ProcessResult r = runner.Run(Shell("echo hello; exit 3"));
  EXPECT_EQ(r.output, "hello\n");
  EXPECT_EQ(r.exit_code, 3);
}

TEST(Sandbox, SignalIsReportedAsASignal) {
  // bwrap turns "killed by signal 11" into exit status 139; the runner turns it back.
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  const ProcessResult r = runner.Run(Shell("kill -SEGV $$"));
  EXPECT_EQ(r.signal, 11) << r.Describe();
}

TEST(Sandbox, EnvironmentIsCleanButKeepsTheCommandsOwn) {
  Fixture f;
  setenv("LABGRADE_TEST_SECRET_TOKEN", "hunter2", 1);
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  Command cmd = Shell("echo \"[$LABGRADE_TEST_SECRET_TOKEN][$LABKIT_EMU_ORDER][$TMPDIR]\"");
  cmd.env["LABKIT_EMU_ORDER"] = "reverse";
  EXPECT_EQ(runner.Run(cmd).output, "[][reverse][" + f.scratch + "/tmp]\n");
  unsetenv("LABGRADE_TEST_SECRET_TOKEN");
}

TEST(Sandbox, AGpuGateAroundItPointsTheCommandAtItsGpu) {
  // The batch's order: the gate outside, the sandbox (which builds the environment) inside.
  Fixture f;
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
  SystemProcessRunner system;
  SandboxedProcessRunner sandboxed(system, f.Policy());
  GpuGate gpus({"GPU-second"});
  GpuGateRunner runner(gpus, sandboxed);
  Command cmd = Shell("echo \"[$CUDA_VISIBLE_DEVICES]\"");
  cmd.gpu = GpuUse::kShared;
  EXPECT_EQ(runner.Run(cmd).output, "[GPU-second]\n");
  cmd.gpu = GpuUse::kNone;  // not a GPU command: labgrade's own value, untouched
  EXPECT_EQ(runner.Run(cmd).output, "[0,1]\n");
  unsetenv("CUDA_VISIBLE_DEVICES");
}

// The kit's replay program asks for its GPU turns through descriptor 3 (gpu_turns.h): bubblewrap,
// and the fallback's env and user switch, hand it on.
TEST(Sandbox, AProgramThatTakesGpuTurnsReachesItsSocketInside) {
  Fixture f;
  for (const bool with_bwrap : {true, false}) {
    SandboxPolicy policy = f.Policy();
    if (!with_bwrap) policy.bwrap = "/nonexistent/bwrap";
    SystemProcessRunner system;
    SandboxedProcessRunner sandboxed(system, policy);
    GpuGate gpus;
    GpuGateRunner runner(gpus, sandboxed);
    Command cmd = Shell("printf x >&3; echo \"granted:$(head -c1 <&3)\"; printf r >&3");
    cmd.gpu = GpuUse::kTurns;
    const ProcessResult r = runner.Run(cmd);
    EXPECT_EQ(r.output, "granted:g\n")
        << (with_bwrap ? "bubblewrap: " : "no bubblewrap: ") << r.Describe() << "\n"
        << sandboxed.Warning();
  }
}

TEST(Sandbox, NetworkIsBlocked) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  REQUIRE_NAMESPACES(runner);
  if (!fs::exists("/bin/bash")) GTEST_SKIP() << "no bash for /dev/tcp";
  // A listening socket outside: reachable from outside, not from inside.
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(server, 4), 0);
  socklen_t length = sizeof address;
  getsockname(server, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));
  Command connect;
  connect.argv = {"/bin/bash", "-c", "echo hi > /dev/tcp/127.0.0.1/" + port};
  connect.timeout_seconds = 10;
  EXPECT_TRUE(system.Run(connect).Succeeded()) << "the control connection outside failed";
  const ProcessResult inside = runner.Run(connect);
  EXPECT_FALSE(inside.Succeeded()) << inside.output;
  EXPECT_NE(inside.output.find("refused"), std::string::npos) << inside.output;
  close(server);
}

// Command::lock_dir, with bubblewrap: every command that names the folder sees it, read-only (the
// GPU's counting runs take turns by a lock file labgrade made there); no other command sees it.
TEST(Sandbox, ALockFolderIsSharedReadOnly) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  REQUIRE_NAMESPACES(runner);
  const std::string locks = f.root.path() + "/locks";
  fs::create_directories(locks);
  std::ofstream(locks + "/lock") << "one\n";
  Command reader = Shell("cat " + locks + "/lock");
  reader.lock_dir = locks;
  EXPECT_EQ(runner.Run(reader).output, "one\n");
  for (const std::string& write : {"echo two > " + locks + "/lock", "rm " + locks + "/lock",
                                   "echo new > " + locks + "/new"}) {
    Command writer = Shell(write);
    writer.lock_dir = locks;
    EXPECT_FALSE(runner.Run(writer).Succeeded()) << write;
  }
  std::ifstream in(locks + "/lock");
  std::string line;
  EXPECT_TRUE(std::getline(in, line) && line == "one");
  // A command that does not name it does not see it.
  EXPECT_FALSE(runner.Run(Shell("cat " + locks + "/lock")).Succeeded());
}

TEST(Sandbox, WritableOnlyInTheScratchFolder) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  REQUIRE_NAMESPACES(runner);
  EXPECT_TRUE(
      runner.Run(Shell("echo x > " + f.scratch + "/out && cat " + f.scratch + "/out")).Succeeded());
  EXPECT_TRUE(fs::exists(f.scratch + "/out"));
  EXPECT_TRUE(runner.Run(Shell("echo x > $TMPDIR/t && echo y > /tmp/t")).Succeeded());
  for (const std::string& target : {f.kit + "/visible.txt", f.kit + "/new", std::string("/usr/x"),
                                    std::string("/etc/passwd")}) {
    const ProcessResult r = runner.Run(Shell("echo x >> " + target));
    EXPECT_FALSE(r.Succeeded()) << target << " was writable";
    // (For an unprivileged user /usr and /etc say "Permission denied" first.)
    if (target.rfind(f.kit, 0) == 0)
      EXPECT_NE(r.output.find("Read-only file system"), std::string::npos) << r.output;
  }
  std::string kept;
  std::getline(std::ifstream(f.kit + "/visible.txt"), kept);
  EXPECT_EQ(kept, "shown");
  EXPECT_FALSE(fs::exists(f.kit + "/new"));
}

TEST(Sandbox, HiddenAndUnlistedPathsCannotBeRead) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  REQUIRE_NAMESPACES(runner);
  EXPECT_EQ(runner.Run(Shell("cat " + f.kit + "/visible.txt")).output, "shown\n");
  // Hidden although inside a read-only folder; the other student's folder is simply not there.
  for (const std::string& path : {f.secret + "/answer.txt", f.outside + "/other_student.cu"}) {
    const ProcessResult r = runner.Run(Shell("cat " + path));
    EXPECT_FALSE(r.Succeeded()) << path << " was readable: " << r.output;
    EXPECT_EQ(r.output.find("the reference solution"), std::string::npos);
    EXPECT_EQ(r.output.find("someone else"), std::string::npos);
  }
  EXPECT_EQ(runner.Run(Shell("ls " + f.secret)).output, "");
  EXPECT_FALSE(runner.Run(Shell("cat /etc/shadow")).Succeeded());
}

TEST(Sandbox, AHiddenFileNamedOnTheCommandLineIsShownToThatCommand) {
  // The speed check compiles solutions/<lab>/ itself: labgrade names the file, the student cannot.
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  REQUIRE_NAMESPACES(runner);
  Command cat;
  cat.argv = {"/bin/cat", f.secret + "/answer.txt"};
  EXPECT_EQ(runner.Run(cat).output, "the reference solution\n");
}

TEST(Sandbox, ForkBombIsContainedAndLeavesNothingBehind) {
  // Once with namespaces (where bwrap works) and once with rlimits and cgroups only.
  for (const char* bwrap : {"bwrap", "/nonexistent/bwrap"}) {
    SCOPED_TRACE(bwrap);
    Fixture f;
    SandboxPolicy policy = f.Policy();
    policy.bwrap = bwrap;
    SystemProcessRunner system;
    SandboxedProcessRunner runner(system, policy);
    if (!HasTaskBound(runner))
      GTEST_SKIP() << "no bound on the number of processes here (no pids cgroup, running as "
                      "root): a fork bomb would hurt this machine before the wall-clock limit";
    const std::string token = UniqueToken();
    // The classic bomb, restarted for as long as it is let run.
    Command bomb = Shell("bomb() { bomb | bomb & }; while :; do bomb; done", 1.5);
    bomb.argv.push_back(token);  // $0 of every copy: how survivors are found
    const ProcessResult r = runner.Run(bomb);
    // The shell gives up when a fork fails, or the wall-clock limit ends it; either way promptly,
    // and the copies it left in the background go with it.
    EXPECT_FALSE(r.Succeeded()) << r.Describe();
    EXPECT_LT(r.seconds, 5.0);
    EXPECT_NE(r.output.find("fork"), std::string::npos) << r.output.substr(0, 300);
    usleep(100 * 1000);
    EXPECT_EQ(ProcessesWith(token), 0) << "fork bomb processes survived";
  }
}

TEST(Sandbox, ProcessesThatLeaveTheGroupDoNotSurvive) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  if (!runner.namespaces() && !HasTaskBound(runner))
    GTEST_SKIP() << "neither a PID namespace nor a cgroup here: a process that calls setsid() "
                    "escapes (docs/SANDBOX.md)";
  const std::string token = UniqueToken();
  // `; :` keeps sh from exec'ing sleep, so that the token stays on a command line.
  const Command escape = Shell("setsid sh -c 'sleep 30; :' " + token + " & echo started", 5);
  const ProcessResult r = runner.Run(escape);
  EXPECT_EQ(r.output, "started\n");
  usleep(200 * 1000);
  EXPECT_EQ(ProcessesWith(token), 0);
}

TEST(Sandbox, OutputFloodIsCapped) {
  Fixture f;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, f.Policy());
  Command flood = Shell("head -c 3000000 /dev/zero");
  flood.output_limit = 1000;
  const ProcessResult r = runner.Run(flood);
  EXPECT_EQ(r.output.size(), 1000u);
  EXPECT_EQ(r.output_dropped, 2999000u);
}

TEST(Sandbox, MemoryHogIsStopped) {
  Fixture f;
  SandboxPolicy policy = f.Policy();
  policy.memory_bytes = 64LL << 20;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, policy);
  // (Without one the resident size is polled: the test after this one.)
  if (!Enforces(runner, "memory (cgroup"))
    GTEST_SKIP() << "no memory cgroup here (RLIMIT_AS is not used because CUDA needs the address "
                    "space):\n"
                 << runner.Warning();
  // dd fills one 256 MiB buffer: four times the limit.
  const ProcessResult r =
      runner.Run(Shell("dd if=/dev/zero of=/dev/null bs=256M count=1 && echo survived"));
  EXPECT_FALSE(r.Succeeded());
  EXPECT_EQ(r.output.find("survived"), std::string::npos);
  EXPECT_NE(r.output.find("memory limit of 64 MiB"), std::string::npos) << r.output;
  EXPECT_EQ(r.memory_stop, ProcessResult::MemoryStop::kKernel);
  EXPECT_EQ(r.memory_limit_bytes, 64LL << 20);
  // The same well under the limit runs.
  EXPECT_TRUE(runner.Run(Shell("dd if=/dev/zero of=/dev/null bs=8M count=1")).Succeeded());
}

TEST(Sandbox, WithoutACgroupMemoryIsLimitedByPollingAndTheWarningSaysSo) {
  Fixture f;
  SandboxPolicy policy = f.Policy();
  policy.memory_bytes = 64LL << 20;
  policy.cgroup_parent = "none";
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, policy);
  ASSERT_TRUE(runner.memory_limited()) << runner.Warning();
  EXPECT_TRUE(Enforces(runner, "memory (resident size")) << runner.Warning();
  EXPECT_NE(runner.Warning().find("exact memory limit: cgroups are switched off; the resident "
                                  "size is polled instead"),
            std::string::npos)
      << runner.Warning();
  // dd holds its 256 MiB buffer (four times the limit) while it waits on a pipe nobody reads.
  const ProcessResult r =
      runner.Run(Shell("dd if=/dev/zero bs=256M count=1 2>/dev/null | sleep 8; echo survived"));
  EXPECT_FALSE(r.Succeeded());
  EXPECT_EQ(r.output.find("survived"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[labgrade: the program used more than the memory limit of 64 MiB and "
                          "was stopped by labgrade]"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.memory_stop, ProcessResult::MemoryStop::kLabgrade);
  EXPECT_LT(r.seconds, 6.0);
}

TEST(Sandbox, AZeroMemoryLimitIsNoLimitAndNothingIsPolled) {
  Fixture f;
  SandboxPolicy policy = f.Policy();
  policy.cgroup_parent = "none";
  policy.memory_bytes = 0;
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, policy);
  EXPECT_FALSE(runner.memory_limited());
  EXPECT_FALSE(Enforces(runner, "memory"));
  EXPECT_EQ(runner.Wrap(Shell("echo ok")).resident_memory_limit, 0);
}

TEST(Sandbox, WithoutBubblewrapFallsBackAndSaysWhatIsMissing) {
  Fixture f;
  SandboxPolicy policy = f.Policy();
  policy.bwrap = "/nonexistent/bwrap";
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, policy);
  EXPECT_FALSE(runner.namespaces());
  const std::string warning = runner.Warning();
  EXPECT_NE(warning.find("network isolation"), std::string::npos) << warning;
  EXPECT_NE(warning.find("file-system isolation"), std::string::npos) << warning;
  EXPECT_NE(warning.find("bubblewrap (/nonexistent/bwrap) is not installed"), std::string::npos);
  // Still runs, still limits what rlimits can: output, file size, a clean environment.
  Command cmd = Shell("echo \"[$HOME]\"; head -c 5000 /dev/zero > big");
  cmd.cwd = f.scratch;
  cmd.file_size_limit = 1000;
  const ProcessResult r = runner.Run(cmd);
  EXPECT_EQ(r.output.substr(0, r.output.find('\n')), "[" + f.scratch + "]");
  EXPECT_LE(fs::file_size(f.scratch + "/big"), 1000u);
  EXPECT_TRUE(r.signal == SIGXFSZ || r.exit_code != 0) << r.Describe();
}

// Root without bubblewrap (many GPU servers): each command runs under an id of its own, so that
// it can neither signal labgrade nor write outside its scratch folder, nor reach another command.
TEST(Sandbox, AsRootWithoutBubblewrapEachCommandRunsUnderAnIdOfItsOwn) {
  if (geteuid() != 0) GTEST_SKIP() << "labgrade does not run as root here";
  Fixture f;
  fs::permissions(f.root.path(), fs::perms::owner_all | fs::perms::group_read |
                                     fs::perms::group_exec | fs::perms::others_read |
                                     fs::perms::others_exec);
  SandboxPolicy policy = f.Policy();
  policy.bwrap = "/nonexistent/bwrap";
  SystemProcessRunner system;
  SandboxedProcessRunner runner(system, policy);
  if (!runner.separate_users()) GTEST_SKIP() << runner.Warning();
  EXPECT_EQ(runner.Warning().find("separate user"), std::string::npos) << runner.Warning();
  EXPECT_TRUE(HasTaskBound(runner)) << runner.Warning();  // the pids cgroup, else RLIMIT_NPROC

  // A file labgrade (root) made in the scratch folder is the command's to rewrite.
  std::ofstream(f.scratch + "/input.txt") << "from labgrade\n";
  Command cmd = Shell("id -u; echo rewritten > input.txt && echo wrote; kill -0 " +
                      std::to_string(getpid()) + " 2>/dev/null && echo signalled labgrade; "
                      "echo x > " + f.kit + "/new 2>/dev/null && echo wrote the kit");
  cmd.cwd = f.scratch;
  const ProcessResult first = runner.Run(cmd);
  std::istringstream lines(first.output);
  std::string id;
  std::getline(lines, id);
  ASSERT_FALSE(id.empty()) << first.Describe();
  EXPECT_GE(std::stoull(id), kFirstSandboxId) << first.output;
  EXPECT_NE(first.output.find("wrote"), std::string::npos) << first.output;
  EXPECT_EQ(first.output.find("signalled labgrade"), std::string::npos) << first.output;
  EXPECT_EQ(first.output.find("wrote the kit"), std::string::npos) << first.output;
  EXPECT_FALSE(fs::exists(f.kit + "/new"));

  const ProcessResult second = runner.Run(Shell("id -u"));
  EXPECT_NE(second.output.substr(0, second.output.find('\n')), id)
      << "two commands ran under the same id";

  // A process that left the group and the session, still holding the output open, ends with the
  // command (its user's processes are killed) instead of keeping it to the time limit.
  const std::string token = UniqueToken();
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult escaped =
      runner.Run(Shell("setsid sh -c 'sleep 30; : " + token + "' & echo left", 20));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_FALSE(escaped.timed_out) << escaped.Describe();
  EXPECT_LT(seconds, 5) << escaped.Describe();
  EXPECT_EQ(ProcessesWith(token), 0);
}

}  // namespace
}  // namespace labkit
