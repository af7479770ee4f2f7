// emu-cxx's logic: a compiler launcher that sends C++/CUDA compiles through the CPU backend's
// preprocess -> rewrite -> compile pipeline (compile_plan.h) and runs everything else unchanged.
#pragma once

#include <string>
#include <vector>

#include "compile_plan.h"
#include "process.h"

namespace emu::cxx {

struct Options {
  EmuPaths paths;
  std::string default_compiler;   // used when the command starts with an option, not a compiler
  bool keep_temporaries = false;  // leave OUT.emu.ii and OUT.emu.cpp for a look
  // A counted compile accepts code its count cannot see (labgrade's tests of what stands behind
  // its checks; compile_plan.h).
  bool allow_uncounted = false;
};

// `command`: the compiler and its arguments, or only the arguments (`emu-cxx -c -O2 x.cu`, the
// form docs/DESIGN.md shows), in which case options.default_compiler is run. Returns the exit
// status of the first failing step, or of the last one. The compiler's messages pass through
// untouched.
int run_launcher(std::vector<std::string> command, const Options& options, CommandRunner& runner);

}  // namespace emu::cxx
