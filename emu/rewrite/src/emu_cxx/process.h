// Running a command: the seam between emu-cxx's logic and the operating system, so that the driver
// is tested with a fake that records commands instead of running them (ninja's CommandRunner).
#pragma once

#include <string>
#include <vector>

namespace emu::cxx {

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs argv[0] (looked up in PATH) with the caller's stdin/stdout/stderr. Returns its exit
  // status, 128 + signal number if a signal ended it, or 127 if it could not be started.
  virtual int run(const std::vector<std::string>& argv) = 0;
};

// The real thing, with posix_spawnp.
class PosixCommandRunner : public CommandRunner {
 public:
  int run(const std::vector<std::string>& argv) override;
};

}  // namespace emu::cxx
