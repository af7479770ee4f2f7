#include "sandbox.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "bwrap_command.h"
#include "process_memory.h"
#include "sandbox_host.h"
#include "sandbox_user.h"

extern char** environ;

namespace labkit {
namespace fs = std::filesystem;
using sandbox_host::Cgroups;
using sandbox_host::CgroupSupport;
using sandbox_host::CommandCgroups;
using sandbox_host::Exists;
using sandbox_host::Normal;
using sandbox_host::UserTaskCount;

namespace {

bool KeepVariable(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (p.back() == '_' ? name.compare(0, p.size(), p) == 0 : name == p) return true;
  }
  return false;
}

std::map<std::string, std::string> SandboxEnvironment(const SandboxPolicy& policy,
                                                      const Command& command) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    if (KeepVariable(entry.substr(0, eq), policy.keep_env_prefixes))
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (env.count("PATH") == 0) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  if (!policy.scratch_dir.empty()) {
    // nvcc and g++ put their temporaries in TMPDIR; keep them in the command's writable folder
    // (on disk, under RLIMIT_FSIZE) rather than in memory.
    const std::string writable = WritableDir(policy, command);
    env["TMPDIR"] = writable + "/tmp";
    env["HOME"] = writable;
  }
  for (const auto& [key, value] : command.env) env[key] = value;
  return env;
}

}  // namespace

SandboxedProcessRunner::SandboxedProcessRunner(ProcessRunner& inner, SandboxPolicy policy)
    : inner_(inner), policy_(std::move(policy)) {
  Init();
}

SandboxedProcessRunner::SandboxedProcessRunner(SandboxPolicy policy, std::ostream* warn)
    : owned_(std::make_unique<SystemProcessRunner>()), inner_(*owned_), policy_(std::move(policy)) {
  Init();
  if (warn != nullptr) WarnOnce(*warn);
}

SandboxedProcessRunner::~SandboxedProcessRunner() = default;

void SandboxedProcessRunner::Init() {
  policy_.scratch_dir = Normal(policy_.scratch_dir);
  for (auto* list : {&policy_.read_only, &policy_.hidden})
    for (std::string& path : *list) path = Normal(path);

  const BwrapProbe& probe = ProbeBwrap(policy_.bwrap, inner_);
  bwrap_ok_ = probe.ok;
  bwrap_path_ = probe.path;
  disable_userns_ = probe.disable_userns;
  const CgroupSupport& cgroups = Cgroups(policy_.cgroup_parent);
  memory_cgroup_ = !cgroups.memory.parent.empty() && policy_.memory_bytes > 0;
  pids_cgroup_ = !cgroups.pids.parent.empty() && policy_.max_tasks > 0;

  enforced_ = {"wall-clock limit (the whole process group is killed)",
               "output cap",
               "file size (RLIMIT_FSIZE)",
               "no core dumps",
               "open files (RLIMIT_NOFILE)",
               "clean environment (only PATH, locale, CUDA_*, LABKIT_* ... are passed)"};
  if (policy_.cpu_seconds > 0) enforced_.push_back("CPU time (RLIMIT_CPU)");
  if (bwrap_ok_) {
    enforced_.insert(
        enforced_.end(),
        {"no network (own network namespace)",
         "read-only view of the system, writable only in the scratch folder",
         "solutions/, datasets, other submissions and results not visible",
         "own PID namespace (nothing outlives the command)",
         disable_userns_ ? "no capabilities, no new privileges, no nested user namespaces"
                         : "no capabilities, no new privileges"});
  } else {
    const std::string why = " (" + probe.why_not + ")";
    if (geteuid() == 0) {
      const std::string scratch_parent = fs::path(policy_.scratch_dir).parent_path().string();
      users_ = CheckSeparateUsers(policy_.read_only, {scratch_parent});
    }
    if (users_.ok) {
      enforced_.push_back(
          "a user id of its own for each command (not root): it cannot signal labgrade or other "
          "commands, writes only in its scratch folder and where everyone may, and nothing it "
          "starts outlives it");
    } else if (geteuid() == 0) {
      not_enforced_.push_back("separate user: student code runs as root, because " +
                              users_.why_not);
    }
    not_enforced_.insert(
        not_enforced_.end(),
        {"network isolation: student code can open connections" + why,
         "file-system isolation: student code can read what " +
             std::string(users_.ok ? "every user" : "labgrade's user") +
             " can read (solutions/, datasets, other submissions)" +
             (users_.ok ? "" : " and write where it can write") + why,
         "PID namespace: a process that leaves its process group outlives the command" +
             std::string(users_.ok ? " while it runs (its user's processes are killed after it)"
                         : pids_cgroup_ || memory_cgroup_ ? " unless the cgroup catches it"
                                                          : "")});
  }
  memory_poll_ = !memory_cgroup_ && policy_.memory_bytes > 0 && CanMeasureResidentMemory();
  if (memory_cgroup_) {
    enforced_.push_back(std::string("memory (cgroup ") + (cgroups.memory.v2 ? "v2" : "v1") + ", " +
                        std::to_string(policy_.memory_bytes >> 20) + " MiB)");
  } else if (memory_poll_) {
    enforced_.push_back("memory (resident size of the command's processes, polled every 100 ms, " +
                        std::to_string(policy_.memory_bytes >> 20) + " MiB)");
    not_enforced_.push_back("exact memory limit: " + cgroups.memory.why_not +
                            "; the resident size is polled instead, so a fast allocation can "
                            "overshoot for a moment and files in /tmp (held in memory) are not "
                            "counted");
  } else if (policy_.memory_bytes > 0) {
    not_enforced_.push_back("memory limit: " + cgroups.memory.why_not +
                            " (RLIMIT_AS is not used: CUDA needs far more address space than "
                            "memory)");
  }
  const bool nproc = (getuid() != 0 || users_.ok) && policy_.user_process_limit != 0 &&
                     (policy_.user_process_limit > 0 || policy_.max_tasks > 0);
  if (pids_cgroup_) {
    enforced_.push_back(std::string("process and thread count (cgroup ") +
                        (cgroups.pids.v2 ? "v2" : "v1") + " pids, " +
                        std::to_string(policy_.max_tasks) + ")");
  } else if (nproc) {
    enforced_.push_back(
        "process count (RLIMIT_NPROC: " +
        (policy_.user_process_limit > 0 ? std::to_string(policy_.user_process_limit)
         : users_.ok ? std::to_string(policy_.max_tasks) + " for the command's user"
                     : "the user's count at the start + " + std::to_string(policy_.max_tasks)) +
        "; counted over all of the user's processes)");
  } else if (policy_.max_tasks > 0) {
    not_enforced_.push_back(
        "process count: " + cgroups.pids.why_not +
        (geteuid() == 0 ? "; RLIMIT_NPROC does not bind root" : "; no RLIMIT_NPROC set") +
        ", so a fork bomb is stopped only by the wall-clock limit" +
        (bwrap_ok_ ? " (the PID namespace then takes every process with it)" : ""));
  }
}

std::string SandboxedProcessRunner::Warning() const {
  if (not_enforced_.empty()) return "";
  std::string text = "labgrade: sandbox: NOT enforced on this machine (see docs/SANDBOX.md):";
  for (const std::string& item : not_enforced_) text += "\n  - " + item;
  return text + "\n";
}

void SandboxedProcessRunner::WarnOnce(std::ostream& out) const {
  static std::once_flag once;
  if (not_enforced_.empty()) return;
  std::call_once(once, [&] { out << Warning() << std::flush; });
}

Command SandboxedProcessRunner::Wrap(const Command& command, uid_t run_as) const {
  Command wrapped = command;
  wrapped.env.clear();
  if (wrapped.cpu_seconds_limit <= 0) wrapped.cpu_seconds_limit = policy_.cpu_seconds;
  wrapped.open_files_limit = policy_.open_files;
  if (memory_poll_) wrapped.resident_memory_limit = policy_.memory_bytes;
  if ((getuid() != 0 || users_.ok) && policy_.user_process_limit > 0) {
    wrapped.process_limit = policy_.user_process_limit;
  } else if (users_.ok && policy_.user_process_limit < 0 && policy_.max_tasks > 0) {
    wrapped.process_limit = policy_.max_tasks;  // the command's own id holds nothing else
  } else if (getuid() != 0 && policy_.user_process_limit < 0 && policy_.max_tasks > 0) {
    wrapped.process_limit = UserTaskCount() + policy_.max_tasks;
  }
  const std::map<std::string, std::string> env = SandboxEnvironment(policy_, command);

  if (!bwrap_ok_) {
    // rlimits, a clean environment and, where labgrade is root, a user id of the command's own.
    wrapped.argv = {};
    if (users_.ok) {
      wrapped.argv = RunAsPrefix(users_, run_as);
      wrapped.own_user = run_as;  // all of it killed when the command ends
    }
    wrapped.argv.push_back(Exists("/usr/bin/env") ? "/usr/bin/env" : "/bin/env");
    wrapped.argv.push_back("-i");
    for (const auto& [key, value] : env) wrapped.argv.push_back(key + "=" + value);
    wrapped.argv.insert(wrapped.argv.end(), command.argv.begin(), command.argv.end());
    wrapped.wrapper_length = wrapped.argv.size() - command.argv.size();
    return wrapped;
  }

  wrapped.argv = BwrapCommandLine(bwrap_path_, disable_userns_, policy_, command, env);
  wrapped.wrapper_length = wrapped.argv.size() - command.argv.size();
  return wrapped;
}

ProcessResult SandboxedProcessRunner::Run(const Command& command) {
  if (command.argv.empty()) return inner_.Run(command);
  const std::string writable = WritableDir(policy_, command);
  if (!writable.empty()) {
    std::error_code ec;
    fs::create_directories(writable + "/tmp", ec);
  }
  if (!command.lock_dir.empty()) {
    std::error_code ec;
    fs::create_directories(command.lock_dir, ec);
  }
  const uid_t run_as = users_.ok ? NextSandboxId() : 0;
  // Only the command's own folder becomes its user's: the rest of the scratch folder (the builds,
  // other runs' evidence) stays out of its reach.
  if (users_.ok && !writable.empty()) GiveTreeTo(writable, run_as);
  Command wrapped = Wrap(command, run_as);
  CommandCgroups cgroups(Cgroups(policy_.cgroup_parent), policy_);
  wrapped.cgroup_procs = cgroups.ProcsFiles();
  ProcessResult result = inner_.Run(wrapped);
  // bwrap reports a command killed by signal N as exit status 128 + N.
  if (bwrap_ok_ && result.started && !result.timed_out && result.signal == 0 &&
      result.exit_code > 128 && result.exit_code < 128 + 65) {
    result.signal = result.exit_code - 128;
    result.exit_code = -1;
  }
  // Said in the output too, for whoever reads it; the grader's messages use the fields.
  const std::string over_limit = "\n[labgrade: the program used more than the memory limit of " +
                                 std::to_string(policy_.memory_bytes >> 20) +
                                 " MiB and was stopped by ";
  if (cgroups.OomKilled()) {
    result.output += over_limit + "the kernel]\n";
    result.memory_stop = ProcessResult::MemoryStop::kKernel;
  } else if (result.memory_exceeded) {
    result.output += over_limit + "labgrade]\n";
    result.memory_stop = ProcessResult::MemoryStop::kLabgrade;
  }
  if (result.memory_stop != ProcessResult::MemoryStop::kNone)
    result.memory_limit_bytes = policy_.memory_bytes;
  return result;
}

}  // namespace labkit
