// The machine side of the sandbox (sandbox.cpp, bwrap_command.cpp): small files under /proc and
// /sys, finding a program, counting this user's tasks, and the cgroups that bound the memory and
// task count of one command.
#pragma once

#include <string>
#include <vector>

#include "sandbox_policy.h"

namespace labkit {
namespace sandbox_host {

std::string ReadSmallFile(const std::string& path);
bool WriteSmallFile(const std::string& path, const std::string& text);
// `path` absolute and normalised, without a trailing '/'.
std::string Normal(const std::string& path);
// True when `path` is `dir` or lies inside it (purely textual, both normalised).
bool IsUnder(const std::string& path, const std::string& dir);
// True when something (a dangling link included) is at `path`.
bool Exists(const std::string& path);
// `name` found on PATH (or as given, when it has a '/'); "" when not there or not executable.
std::string FindProgram(const std::string& name);
// Processes and threads of this real user now (what RLIMIT_NPROC counts).
long long UserTaskCount();

// ---------------------------------------------------------------------------------------------
// cgroups: one child group per command under a parent we may write to. cgroup v2 where it has
// the controller, else the v1 hierarchy of that controller (hybrid machines have both).

struct Controller {
  std::string parent;  // empty: not available
  bool v2 = false;
  std::string why_not;
};

struct CgroupSupport {
  Controller memory, pids;
};

// Where the memory and pids controllers can be used, found once per parent (the policy's, else
// $LABKIT_SANDBOX_CGROUP, else our own cgroup) and kept.
const CgroupSupport& Cgroups(const std::string& policy_parent);

// The child groups of one command: made with the policy's limits, emptied and removed when it goes.
class CommandCgroups {
 public:
  CommandCgroups(const CgroupSupport& support, const SandboxPolicy& policy);
  ~CommandCgroups();
  CommandCgroups(const CommandCgroups&) = delete;
  CommandCgroups& operator=(const CommandCgroups&) = delete;

  // The cgroup.procs file of each group, for the child to join.
  std::vector<std::string> ProcsFiles() const;
  // Did the kernel's OOM killer act inside the memory group?
  bool OomKilled() const;

 private:
  std::vector<std::string> dirs_;
  std::vector<bool> v2_;
  std::string memory_dir_;
  bool memory_v2_ = false;
};

}  // namespace sandbox_host
}  // namespace labkit
