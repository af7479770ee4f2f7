#include "sandbox_host.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace labkit {
namespace sandbox_host {
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Small file and path helpers.

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool WriteSmallFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

std::string Normal(const std::string& path) {
  if (path.empty()) return path;
  std::string p = fs::absolute(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// True when `path` is `dir` or lies inside it (purely textual, both normalised).
bool IsUnder(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

std::string FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Processes and threads of this real user now (what RLIMIT_NPROC counts).
long long UserTaskCount() {
  long long count = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat info {};
    if (stat(entry.path().c_str(), &info) != 0 || info.st_uid != getuid()) continue;
    std::error_code task_ec;
    for (auto it = fs::directory_iterator(entry.path() / "task", task_ec);
         !task_ec && it != fs::directory_iterator(); it.increment(task_ec))
      ++count;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// cgroups: one child group per command under a parent we may write to. cgroup v2 where it has
// the controller, else the v1 hierarchy of that controller (hybrid machines have both).

namespace {

struct MountInfo {
  std::string root, mount_point, fs_type, options;
};

std::vector<MountInfo> CgroupMounts() {
  std::vector<MountInfo> mounts;
  std::istringstream lines(ReadSmallFile("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string word;
    while (fields >> word) f.push_back(word);
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || dash + 3 > f.end()) continue;
    MountInfo m{f[3], f[4], *(dash + 1), *(dash + 3)};
    if (m.fs_type == "cgroup" || m.fs_type == "cgroup2") mounts.push_back(m);
  }
  return mounts;
}

// Our own cgroup in the hierarchy mounted at `m` ("0::/x" for v2, "4:memory:/x" for v1).
std::string OwnCgroupDir(const MountInfo& m, const std::string& controller) {
  std::istringstream lines(ReadSmallFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    bool match = false;
    if (m.fs_type == "cgroup2") {
      match = line.compare(0, 2, "0:") == 0 && controllers.empty();
    } else {
      std::istringstream names(controllers);
      std::string name;
      while (std::getline(names, name, ','))
        if (name == controller) match = true;
    }
    if (!match) continue;
    if (m.root != "/" && IsUnder(path, m.root)) path = path.substr(m.root.size());
    return Normal(m.mount_point + "/" + path);
  }
  return "";
}

// Can we make a child of `parent` that has `limit_file`? (v2: enabling the controller first.)
bool TryParent(const std::string& parent, const std::string& controller, bool v2,
               const std::string& limit_file) {
  if (parent.empty() || access(parent.c_str(), W_OK) != 0) return false;
  if (v2) {
    const std::string enabled = ReadSmallFile(parent + "/cgroup.subtree_control");
    if (enabled.find(controller) == std::string::npos)
      WriteSmallFile(parent + "/cgroup.subtree_control", "+" + controller);  // may fail: EBUSY
  }
  const std::string probe = parent + "/labgrade-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) return false;
  const bool ok = Exists(probe + "/" + limit_file);
  rmdir(probe.c_str());
  return ok;
}

Controller FindController(const std::string& controller, const std::string& override_parent) {
  Controller c;
  const std::string v2_file = controller + ".max";
  const std::string v1_file = controller == "memory" ? "memory.limit_in_bytes" : "pids.max";
  if (override_parent == "none") {
    c.why_not = "cgroups are switched off";
    return c;
  }
  if (!override_parent.empty()) {
    const bool v2 = Exists(override_parent + "/cgroup.controllers");
    if (TryParent(override_parent, controller, v2, v2 ? v2_file : v1_file)) {
      c.parent = override_parent;
      c.v2 = v2;
    } else {
      c.why_not = "no " + controller + " controller can be used under " + override_parent;
    }
    return c;
  }
  const auto mounts = CgroupMounts();
  for (const MountInfo& m : mounts) {  // v2 first
    if (m.fs_type != "cgroup2") continue;
    const std::string own = OwnCgroupDir(m, controller);
    if (ReadSmallFile(m.mount_point + "/cgroup.controllers").find(controller) == std::string::npos)
      continue;
    if (TryParent(own, controller, true, v2_file)) {
      c.parent = own;
      c.v2 = true;
      return c;
    }
  }
  for (const MountInfo& m : mounts) {
    if (m.fs_type != "cgroup" ||
        ("," + m.options + ",").find("," + controller + ",") == std::string::npos)
      continue;
    const std::string own = OwnCgroupDir(m, controller);
    if (TryParent(own, controller, false, v1_file)) {
      c.parent = own;
      return c;
    }
  }
  c.why_not = "no writable cgroup with the " + controller +
              " controller (set LABKIT_SANDBOX_CGROUP to a delegated one, see docs/SANDBOX.md)";
  return c;
}

}  // namespace

const CgroupSupport& Cgroups(const std::string& policy_parent) {
  static std::mutex mutex;
  static std::map<std::string, CgroupSupport> cache;
  std::string parent = policy_parent;
  const char* env = std::getenv("LABKIT_SANDBOX_CGROUP");
  if (parent.empty() && env != nullptr) parent = env;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(parent);
  if (it == cache.end())
    it = cache
             .emplace(parent, CgroupSupport{FindController("memory", parent),
                                            FindController("pids", parent)})
             .first;
  return it->second;
}

CommandCgroups::CommandCgroups(const CgroupSupport& support, const SandboxPolicy& policy) {
  static std::atomic<unsigned> counter{0};
  const std::string name = "labgrade-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  const Controller* both[] = {&support.memory, &support.pids};
  for (const Controller* c : both) {
    if (c->parent.empty()) continue;
    const std::string dir = c->parent + "/" + name;
    if (std::find(dirs_.begin(), dirs_.end(), dir) == dirs_.end()) {
      if (mkdir(dir.c_str(), 0755) != 0) continue;
      dirs_.push_back(dir);
      v2_.push_back(c->v2);
    }
    if (c == &support.memory && policy.memory_bytes > 0) {
      const std::string bytes = std::to_string(policy.memory_bytes);
      if (c->v2) {
        WriteSmallFile(dir + "/memory.max", bytes);
        WriteSmallFile(dir + "/memory.swap.max", "0");
      } else {
        WriteSmallFile(dir + "/memory.limit_in_bytes", bytes);
        WriteSmallFile(dir + "/memory.memsw.limit_in_bytes", bytes);  // no swap either
      }
      memory_dir_ = dir;
      memory_v2_ = c->v2;
    }
    if (c == &support.pids && policy.max_tasks > 0)
      WriteSmallFile(dir + "/pids.max", std::to_string(policy.max_tasks));
  }
}

std::vector<std::string> CommandCgroups::ProcsFiles() const {
  std::vector<std::string> files;
  for (const std::string& dir : dirs_) files.push_back(dir + "/cgroup.procs");
  return files;
}

// Did the kernel's OOM killer act inside the memory group?
bool CommandCgroups::OomKilled() const {
  if (memory_dir_.empty()) return false;
  const std::string text =
      ReadSmallFile(memory_dir_ + (memory_v2_ ? "/memory.events" : "/memory.oom_control"));
  const auto at = text.find("oom_kill ");
  return at != std::string::npos && std::atoll(text.c_str() + at + 9) > 0;
}

// Kills whatever is still inside (a process that left the process group and had no PID
// namespace to die with) and removes the groups.
CommandCgroups::~CommandCgroups() {
  for (std::size_t i = 0; i < dirs_.size(); ++i) {
    const std::string& dir = dirs_[i];
    if (v2_[i] && Exists(dir + "/cgroup.kill")) WriteSmallFile(dir + "/cgroup.kill", "1");
    for (int attempt = 0; attempt < 200; ++attempt) {
      std::istringstream pids(ReadSmallFile(dir + "/cgroup.procs"));
      bool any = false;
      for (long pid; pids >> pid;) {
        any = true;
        kill(static_cast<pid_t>(pid), SIGKILL);
      }
      if (!any && rmdir(dir.c_str()) == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    rmdir(dir.c_str());
  }
}

}  // namespace sandbox_host
}  // namespace labkit
