// Runs a shell command for the tests that drive real executables, capturing stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace emu::testing {

struct CommandOutput {
  int status = -1;  // the exit status, or -1 if it did not exit normally
  std::string output;
};

inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace emu::testing
