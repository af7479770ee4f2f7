// The bubblewrap (bwrap) command line a sandboxed command runs under (docs/SANDBOX.md): its own
// namespaces, a read-only view of the system and of the folders the policy shows, writable only in
// the command's folder, the hidden folders covered, a clean environment. Whether bwrap works here
// at all is probed once per program.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "process.h"
#include "sandbox_policy.h"

namespace labkit {

struct BwrapProbe {
  bool ok = false;              // bwrap created its namespaces here
  bool disable_userns = false;  // ... with --disable-userns (bwrap 0.8 and later)
  std::string path;             // where `bwrap` was found
  std::string why_not;          // when not ok, for the sandbox's list of what it does not enforce
};

// Whether `bwrap` (a name looked up on PATH, or a path) works here, found once per name with
// `runner` and kept.
const BwrapProbe& ProbeBwrap(const std::string& bwrap, ProcessRunner& runner);

// The command line that runs `command` under bwrap at `bwrap_path` with `policy`, its environment
// `env` (made by the sandbox) and nothing else: bwrap's own arguments, "--", then command.argv.
std::vector<std::string> BwrapCommandLine(const std::string& bwrap_path, bool disable_userns,
                                          const SandboxPolicy& policy, const Command& command,
                                          const std::map<std::string, std::string>& env);

}  // namespace labkit
