#include "bwrap_command.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "sandbox_host.h"

namespace labkit {
namespace fs = std::filesystem;
using sandbox_host::Exists;
using sandbox_host::FindProgram;
using sandbox_host::IsUnder;
using sandbox_host::Normal;

namespace {

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "no message" : line;
}

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

}  // namespace

const BwrapProbe& ProbeBwrap(const std::string& bwrap, ProcessRunner& runner) {
  static std::mutex mutex;
  static std::map<std::string, BwrapProbe> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(bwrap);
  if (it != cache.end()) return it->second;
  BwrapProbe probe;
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

std::vector<std::string> BwrapCommandLine(const std::string& bwrap_path, bool disable_userns,
                                          const SandboxPolicy& policy, const Command& command,
                                          const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = BaseArgs(bwrap_path, policy.network, disable_userns);
  const std::vector<Mount> system = SystemMounts();
  std::vector<std::string> visible;  // roots that are shown, for deciding what hidden must cover
  for (const Mount& m : system)
    if (m.op == "--ro-bind") visible.push_back(m.target);  // (/tmp is an empty tmpfs)

  std::vector<Mount> mounts;
  if (!policy.scratch_dir.empty()) {
    const std::string writable = WritableDir(policy, command);
    if (writable == policy.scratch_dir) {
      mounts.push_back({"--bind", policy.scratch_dir, policy.scratch_dir});
    } else {
      mounts.push_back({"--ro-bind", policy.scratch_dir, policy.scratch_dir});
      mounts.push_back({"--bind", writable, writable});
    }
    visible.push_back(policy.scratch_dir);
  }
  const std::vector<std::string> system_roots = visible;
  for (const std::string& path : policy.read_only) {
    // Missing, or shown already by a system mount (binding again over a symlink there would
    // mount onto its target).
    if (!Exists(path) || std::any_of(system_roots.begin(), system_roots.end(),
                                     [&](const std::string& v) { return IsUnder(path, v); }))
      continue;
    mounts.push_back({"--ro-bind", path, path});
    visible.push_back(path);
  }
  for (const std::string& hidden : policy.hidden) {
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
    for (const std::string& hidden : policy.hidden) {
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
  for (const std::string& device : policy.devices)
    argv.insert(argv.end(), {"--dev-bind-try", device, device});

  // Lock files shared with the command's other instances (Command::lock_dir): read-only, for a
  // lock needs no more, and no command can then replace the file the others lock.
  if (!command.lock_dir.empty())
    argv.insert(argv.end(), {"--ro-bind", command.lock_dir, command.lock_dir});
  argv.push_back("--clearenv");
  for (const auto& [key, value] : env) argv.insert(argv.end(), {"--setenv", key, value});
  const std::string cwd = !command.cwd.empty() ? Normal(command.cwd) : policy.scratch_dir;
  if (!cwd.empty()) argv.insert(argv.end(), {"--chdir", cwd});
  argv.push_back("--");
  argv.insert(argv.end(), command.argv.begin(), command.argv.end());
  return argv;
}

}  // namespace labkit
