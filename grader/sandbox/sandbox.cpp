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

#include "file_lock.h"
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
using sandbox_host::FindProgram;
using sandbox_host::IsUnder;
using sandbox_host::Normal;
using sandbox_host::UserTaskCount;

namespace {

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no message" : line;
}

// ---------------------------------------------------------------------------------------------
// The bwrap command line.

// /etc entries compilers, the dynamic linker and the CUDA driver read; the rest (shadow, ssh keys,
// the grader's configuration) stays out.
const char* const kEtcEntries[] = {"/etc/ld.so.cache",   "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                   "/etc/alternatives",  "/etc/passwd",     "/etc/group",
                                   "/etc/nsswitch.conf", "/etc/localtime",  "/etc/hosts",
                                   "/etc/host.conf",     "/etc/OpenCL",     "/etc/vulkan",
                                   "/etc/nvidia",        "/etc/gcrypt",     "/etc/ssl/certs"};

const char* const kSystemDirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

// Mount operations in the order bwrap must do them: a folder before what is mounted inside it.
struct Mount {
  std::string op;  // --ro-bind, --bind, --tmpfs, --dev-bind, --symlink
  std::string source, target;
};

void AddMountArgs(std::vector<std::string>& argv, const std::vector<Mount>& mounts) {
  for (const Mount& m : mounts) {
    argv.push_back(m.op);
    if (m.op != "--tmpfs") argv.push_back(m.source);
    argv.push_back(m.target);
  }
}

// Folders visible without the policy's own binds (for deciding what a hidden path must cover).
std::vector<Mount> SystemMounts() {
  std::vector<Mount> mounts;
  for (const char* dir : kSystemDirs) {
    std::error_code ec;
    const auto status = fs::symlink_status(dir, ec);
    if (fs::is_symlink(status)) {
      mounts.push_back({"--symlink", fs::read_symlink(dir, ec).string(), dir});
    } else if (fs::is_directory(status)) {
      mounts.push_back({"--ro-bind", dir, dir});
    }
  }
  for (const char* entry : kEtcEntries)
    if (Exists(entry)) mounts.push_back({"--ro-bind", entry, entry});
  // CUDA and NVML read PCI and NUMA topology here; read-only, and nothing secret.
  if (Exists("/sys")) mounts.push_back({"--ro-bind", "/sys", "/sys"});
  return mounts;
}

std::vector<std::string> BaseArgs(const std::string& bwrap, bool network, bool disable_userns) {
  std::vector<std::string> argv = {bwrap,           "--unshare-user", "--unshare-ipc",
                                   "--unshare-pid", "--unshare-uts",  "--unshare-cgroup-try"};
  if (!network) argv.push_back("--unshare-net");
  // No nested user namespaces (bwrap 0.8 and later), the sandbox dies with labgrade, no terminal
  // to inject keystrokes into (TIOCSTI), no capabilities even where labgrade runs as root.
  if (disable_userns) argv.push_back("--disable-userns");
  argv.insert(argv.end(), {"--die-with-parent", "--new-session", "--cap-drop", "ALL", "--proc",
                           "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp"});
  AddMountArgs(argv, SystemMounts());
  return argv;
}

struct Probe {
  bool ok = false;
  bool disable_userns = false;
  std::string path;
  std::string why_not;
};

const Probe& ProbeBwrap(const std::string& bwrap, ProcessRunner& runner) {
  static std::mutex mutex;
  static std::map<std::string, Probe> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(bwrap);
  if (it != cache.end()) return it->second;
  Probe probe;
  probe.path = FindProgram(bwrap);
  if (probe.path.empty()) {
    probe.why_not = "bubblewrap (" + bwrap + ") is not installed (apt-get install bubblewrap)";
  } else {
    // Older bwrap (Ubuntu 22.04 has 0.6) lacks --disable-userns: try with it, then without.
    for (const bool disable_userns : {true, false}) {
      Command cmd;
      cmd.argv = BaseArgs(probe.path, false, disable_userns);
      cmd.argv.push_back(Exists("/usr/bin/true") ? "/usr/bin/true" : "/bin/true");
      cmd.timeout_seconds = 20;
      const ProcessResult r = runner.Run(cmd);
      probe.ok = r.Succeeded();
      probe.disable_userns = disable_userns;
      if (probe.ok) break;
      probe.why_not = "bubblewrap cannot create namespaces here (" + r.Describe() + ": " +
                      FirstLine(r.output) + ")";
    }
  }
  return cache.emplace(bwrap, probe).first->second;
}

bool KeepVariable(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (p.back() == '_' ? name.compare(0, p.size(), p) == 0 : name == p) return true;
  }
  return false;
}

// The one folder a command may write: its working folder when that lies inside the scratch
// folder (a harness run: the record run cannot touch the replay's folder, nor the builds), else
// the whole scratch folder (the compilers).
std::string WritableDir(const SandboxPolicy& policy, const Command& command) {
  if (policy.scratch_dir.empty() || command.cwd.empty()) return policy.scratch_dir;
  const std::string cwd = Normal(command.cwd);
  return IsUnder(cwd, policy.scratch_dir) ? cwd : policy.scratch_dir;
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

// ---------------------------------------------------------------------------------------------

SandboxPolicy SystemSandboxPolicy(const std::string& scratch_dir) {
  SandboxPolicy policy;
  policy.scratch_dir = Normal(scratch_dir);
  // /opt/nvidia: Nsight Compute, whose ncu counts the GPU's loads for the technique checks.
  for (const char* dir : {"/usr/local/cuda", "/opt/cuda", "/opt/nvidia"}) {
    std::error_code ec;
    if (Exists(dir)) policy.read_only.push_back(fs::canonical(dir, ec).string());
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) policy.devices.push_back(entry.path().string());
  }
  return policy;
}

std::vector<std::string> ToolInstallation(const std::string& tool) {
  std::vector<std::string> folders;
  if (tool.empty()) return folders;
  std::error_code ec;
  for (const fs::path& path : {fs::path(tool), fs::canonical(tool, ec)}) {
    if (path.empty()) continue;
    const fs::path folder = path.parent_path();
    // bin/.. is the installation; a tool outside any bin/ folder shows only its own folder.
    folders.push_back((folder.filename() == "bin" ? folder.parent_path() : folder).string());
  }
  return folders;
}

SandboxPolicy GradingSandboxPolicy(const Manifest& manifest, const std::string& lab,
                                   const std::string& src_dir, const std::string& work_dir,
                                   const std::vector<std::string>& extra_hidden) {
  SandboxPolicy policy = SystemSandboxPolicy(work_dir);
  auto show = [&](const std::string& path) {
    if (!path.empty()) policy.read_only.push_back(Normal(path));
  };
  show(src_dir);
  show(manifest.LabDir(lab));
  show(manifest.common_include);
  show(manifest.harness_include);
  show(manifest.boost_context);
  // A compiler is more than its driver: g++ runs cc1plus from ../libexec, and a driver may be a
  // script or link that starts the real one beside it (/opt/gcc/bin/g++ -> g++-real). Its whole
  // installation is shown, named as the manifest names it and as its links resolve.
  for (const std::string* tool : {&manifest.cxx, &manifest.nvcc})
    for (const std::string& folder : ToolInstallation(*tool)) show(folder);
  if (manifest.emu_backend) {
    show(fs::path(manifest.emu_cxx).parent_path().string());  // emu-cxx and emu-rewrite
    // emu-cxx's force-included header and include folder (baked into emu-cxx at build time).
    show(manifest.source_dir + "/emu/runtime/include");
  }
  // Only the lab's own libraries from the build folder: the rest of it holds objects built from
  // solutions/ (benchmarks, tests) and the datasets.
  for (const auto* libs : {&manifest.gpu_libs, &manifest.emu_libs}) {
    const auto it = libs->find(lab);
    if (it != libs->end())
      for (const std::string& lib : it->second) show(lib);
  }
  for (const std::string& hidden :
       {manifest.source_dir + "/solutions", manifest.source_dir + "/.git", manifest.data_dir})
    if (!hidden.empty()) policy.hidden.push_back(Normal(hidden));
  for (const std::string& hidden : extra_hidden)
    if (!hidden.empty()) policy.hidden.push_back(Normal(hidden));
  return policy;
}

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

  const Probe& probe = ProbeBwrap(policy_.bwrap, inner_);
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

  std::vector<std::string> argv = BaseArgs(bwrap_path_, policy_.network, disable_userns_);
  const std::vector<Mount> system = SystemMounts();
  std::vector<std::string> visible;  // roots that are shown, for deciding what hidden must cover
  for (const Mount& m : system)
    if (m.op == "--ro-bind") visible.push_back(m.target);  // (/tmp is an empty tmpfs)

  std::vector<Mount> mounts;
  if (!policy_.scratch_dir.empty()) {
    const std::string writable = WritableDir(policy_, command);
    if (writable == policy_.scratch_dir) {
      mounts.push_back({"--bind", policy_.scratch_dir, policy_.scratch_dir});
    } else {
      mounts.push_back({"--ro-bind", policy_.scratch_dir, policy_.scratch_dir});
      mounts.push_back({"--bind", writable, writable});
    }
    visible.push_back(policy_.scratch_dir);
  }
  const std::vector<std::string> system_roots = visible;
  for (const std::string& path : policy_.read_only) {
    // Missing, or shown already by a system mount (binding again over a symlink there would
    // mount onto its target).
    if (!Exists(path) || std::any_of(system_roots.begin(), system_roots.end(),
                                     [&](const std::string& v) { return IsUnder(path, v); }))
      continue;
    mounts.push_back({"--ro-bind", path, path});
    visible.push_back(path);
  }
  for (const std::string& hidden : policy_.hidden) {
    if (!Exists(hidden)) continue;
    const bool shown = std::any_of(visible.begin(), visible.end(),
                                   [&](const std::string& v) { return IsUnder(hidden, v); });
    if (!shown) continue;  // bwrap starts from an empty root: nothing to cover
    if (fs::is_directory(hidden)) {
      mounts.push_back({"--tmpfs", "", hidden});
    } else {
      mounts.push_back({"--ro-bind", "/dev/null", hidden});
    }
  }
  // A file that labgrade names on the command line inside a hidden folder (the reference
  // solution of the speed check) is the kit's own: show its folder to this command only.
  for (const std::string& arg : command.argv) {
    if (arg.empty() || arg[0] != '/' || !Exists(arg)) continue;
    const std::string path = Normal(arg);
    for (const std::string& hidden : policy_.hidden) {
      if (!IsUnder(path, hidden) || path == hidden) continue;
      const std::string dir = fs::is_directory(path) ? path : fs::path(path).parent_path().string();
      mounts.push_back({"--ro-bind", dir, dir});
    }
  }
  // Parents before children, so that a hidden folder's tmpfs lies under the submission's own bind
  // when the submission sits inside it, and a read-only folder inside the scratch stays read-only.
  std::stable_sort(mounts.begin(), mounts.end(), [](const Mount& a, const Mount& b) {
    return std::count(a.target.begin(), a.target.end(), '/') <
           std::count(b.target.begin(), b.target.end(), '/');
  });
  AddMountArgs(argv, mounts);
  for (const std::string& device : policy_.devices)
    argv.insert(argv.end(), {"--dev-bind-try", device, device});

  // The tool's lock files, shared with its other instances (Command::tool_lock_dir).
  if (!command.tool_lock_dir.empty())
    argv.insert(argv.end(), {"--bind", command.tool_lock_dir, command.tool_lock_dir});
  argv.push_back("--clearenv");
  for (const auto& [key, value] : env)
    argv.insert(argv.end(), {"--setenv", key,
                             key == "TMPDIR" && !command.tool_lock_dir.empty()
                                 ? command.tool_lock_dir
                                 : value});
  const std::string cwd = !command.cwd.empty() ? Normal(command.cwd) : policy_.scratch_dir;
  if (!cwd.empty()) argv.insert(argv.end(), {"--chdir", cwd});
  argv.push_back("--");
  argv.insert(argv.end(), command.argv.begin(), command.argv.end());
  wrapped.argv = std::move(argv);
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
  // Command::tool_lock_dir: shared where bubblewrap can show it, else whole runs take turns.
  std::optional<ExclusiveFileLock> whole_run;
  if (!command.tool_lock_dir.empty()) {
    std::error_code ec;
    fs::create_directories(command.tool_lock_dir, ec);
    if (!bwrap_ok_) whole_run.emplace(command.tool_lock_dir + "/whole-run.lock");
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
