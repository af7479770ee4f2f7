// For the build's tests whose runners stand in for the compilers: what a real compiler leaves
// beside the object when asked for -MD -MF FILE, its list of the headers the source included
// (header_policy.h), here the source alone.
#pragma once

#include <algorithm>
#include <fstream>
#include <string>

#include "process.h"

namespace labkit {

inline void WriteDependencyList(const Command& command) {
  const auto mf = std::find(command.argv.begin(), command.argv.end(), "-MF");
  if (mf == command.argv.end() || mf + 1 == command.argv.end()) return;
  std::ofstream(*(mf + 1)) << "object.o: source.cu\n";
}

// A preprocessing (-E) writes its output, as the real one would: an empty one keeps no line, the
// same on both backends (backend_conditionals.h).
inline void WritePreprocessedOutput(const Command& command) {
  const auto& argv = command.argv;
  if (std::find(argv.begin(), argv.end(), "-E") == argv.end()) return;
  const auto o = std::find(argv.begin(), argv.end(), "-o");
  if (o != argv.end() && o + 1 != argv.end()) std::ofstream(*(o + 1), std::ios::trunc);
}

}  // namespace labkit
