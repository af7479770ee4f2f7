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

#include "manifest.h"
#include "process.h"
#include "sandbox_user.h"

namespace labkit {

struct SandboxPolicy {
  std::string scratch_dir;             // the only writable place; TMPDIR and HOME point into it
  std::vector<std::string> read_only;  // visible read-only at the same path (missing ones skipped)
  // Never visible, even where they lie inside a read-only path. A file that labgrade itself names
  // on a command line inside one of these (the kit's reference build) is shown for that command.
  std::vector<std::string> hidden;
  std::vector<std::string> devices;  // device files passed through (the GPU's), if present
  bool network = false;              // false: an empty network namespace (not even loopback)
  std::vector<std::string> keep_env_prefixes = {"PATH", "LD_LIBRARY_PATH", "LANG",    "LC_",
                                                "TZ",   "CUDA_",           "NVIDIA_", "LABKIT_"};

  // Memory limit: the cgroup's, else the resident size polled (never RLIMIT_AS: CUDA needs VA).
  long long memory_bytes = 8LL << 30;
  long long max_tasks = 1024;  // processes + threads inside the sandbox (pids cgroup)
  // RLIMIT_NPROC, applied only when labgrade does not run as root (root is exempt). It counts every
  // process and thread of the user, not of the command (docs/SANDBOX.md): -1 = the user's count
  // when the command starts plus max_tasks; 0 = leave it as it is; else that value.
  long long user_process_limit = -1;
  long long open_files = 1024;  // RLIMIT_NOFILE
  long long cpu_seconds = 0;    // RLIMIT_CPU when the command sets none; 0: none

  std::string bwrap = "bwrap";  // tests point this at a missing program to see the fallback
  // The cgroup under which each command gets a child: empty = labgrade's own cgroup (or
  // $LABKIT_SANDBOX_CGROUP), "none" = do not use cgroups.
  std::string cgroup_parent;
};

// The policy for grading one submission: the system folders, the CUDA toolkit, the kit's headers,
// the lab's folder and harness libraries, the submission (read-only) and the work folder
// (writable); solutions/, .git, the datasets and `extra_hidden` (results folders) hidden.
SandboxPolicy GradingSandboxPolicy(const Manifest& manifest, const std::string& lab,
                                   const std::string& src_dir, const std::string& work_dir,
                                   const std::vector<std::string>& extra_hidden = {});

// The folders a tool such as the compiler needs shown: its installation (bin/..), by the path
// given and by the path its links resolve to; a tool outside a bin/ folder, that folder.
std::vector<std::string> ToolInstallation(const std::string& tool);

// Bare system policy (system folders read-only, nothing of the kit), for tests and tools.
SandboxPolicy SystemSandboxPolicy(const std::string& scratch_dir);

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
