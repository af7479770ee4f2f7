// What a sandboxed command may see, write and use (docs/SANDBOX.md): the policy that
// SandboxedProcessRunner (sandbox.h) enforces, and the policies labgrade grades and tests under.
#pragma once

#include <string>
#include <vector>

#include "manifest.h"
#include "process.h"

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

// The one folder a command may write: its working folder when that lies inside the scratch
// folder (a harness run: the record run cannot touch the replay's folder, nor the builds), else
// the whole scratch folder (the compilers).
std::string WritableDir(const SandboxPolicy& policy, const Command& command);

}  // namespace labkit
