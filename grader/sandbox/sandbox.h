// The sandbox every build and run of student code goes through (docs/SANDBOX.md).
//
// SandboxedProcessRunner decorates another ProcessRunner: it rewrites each Command into a
// bubblewrap (bwrap) invocation when bwrap works here (no network, a read-only view of the few
// folders the command needs, writable only in the scratch folder, its own PID namespace), puts it
// in a memory- and pids-limited cgroup where one can be created (else has the runner poll its
// resident memory), and adds rlimits. What cannot be
// had on this machine falls back to less and is listed in not_enforced(), so that labgrade can say
// so once and reports can record it.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "process.h"
#include "sandbox_policy.h"
#include "sandbox_user.h"

namespace labkit {

class SandboxedProcessRunner : public ProcessRunner {
 public:
  // Uses `inner` to start processes (normally a SystemProcessRunner).
  SandboxedProcessRunner(ProcessRunner& inner, SandboxPolicy policy);
  // Owns a SystemProcessRunner; prints the warning (once per labgrade process) to `warn`, if given.
  explicit SandboxedProcessRunner(SandboxPolicy policy, std::ostream* warn = nullptr);
  ~SandboxedProcessRunner() override;

  ProcessResult Run(const Command& command) override;

  bool namespaces() const { return bwrap_ok_; }  // bwrap works: fs view, network, PID namespace
  // A memory limit holds: the cgroup's, or else labgrade polling the resident size.
  bool memory_limited() const { return memory_cgroup_ || memory_poll_; }
  const std::vector<std::string>& enforced() const { return enforced_; }
  const std::vector<std::string>& not_enforced() const { return not_enforced_; }
  // "labgrade: sandbox: NOT enforced here: ..." or empty when everything is.
  std::string Warning() const;
  // Prints Warning() to `out` the first time any runner of this process has one.
  void WarnOnce(std::ostream& out) const;

  // The command as it is handed to the inner runner, without cgroups (for tests and --verbose);
  // `run_as`: the user id it runs under where separate_users() (NextSandboxId()).
  Command Wrap(const Command& command, uid_t run_as = 0) const;
  // No bubblewrap, but labgrade is root: each command runs under a user id of its own.
  bool separate_users() const { return users_.ok; }

 private:
  void Init();

  std::unique_ptr<ProcessRunner> owned_;
  ProcessRunner& inner_;
  SandboxPolicy policy_;
  bool bwrap_ok_ = false;
  bool disable_userns_ = false;
  std::string bwrap_path_;
  bool memory_cgroup_ = false;
  bool memory_poll_ = false;  // no memory cgroup: the runner polls the resident size instead
  bool pids_cgroup_ = false;
  SeparateUsers users_;
  std::vector<std::string> enforced_;
  std::vector<std::string> not_enforced_;
};

}  // namespace labkit
