// How emu-cxx turns one ordinary compile command into its three steps (DESIGN.md, "CPU backend"):
//   (a) preprocess:  CXX <args for cpp> -D__LABKIT_EMU__=1 -I <emu include> -include <cuda_emu.h>
//                    -E -o OUT.emu.ii -x c++ IN            (dependency flags only here)
//   (b) rewrite:     emu-rewrite OUT.emu.ii OUT.emu.cpp
//   (c) compile:     CXX <args for the compiler> -c -o OUT -x c++-cpp-output OUT.emu.cpp
// Preprocessor-only flags (-D, -U, -I..., -include, -M...) go to (a) only: (c) compiles text that
// is already preprocessed, and a `-include` or `-D` applied twice could change it. This is a pure
// function of the arguments, so it is tested without running anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace emu::cxx {

struct EmuPaths {
  std::string rewrite;      // the emu-rewrite executable
  std::string header;       // cuda_emu.h, force-included
  std::string include_dir;  // holds cuda_runtime.h; searched before every other folder
};

struct CompilePlan {
  std::string input, output;
  std::string preprocessed, rewritten;  // temporaries next to the output
  std::vector<std::string> preprocess;  // step (a), complete
  std::vector<std::string> rewrite;     // step (b), complete
  // Step (c) without its last three words, `-x <language> <rewritten>`: the language depends on
  // what the rewrite produced (see emu::rewrite::output_needs_preprocessor).
  std::vector<std::string> compile;
};

// `command` is the compiler and its arguments (emu-cxx's own name already removed). Returns no plan
// for anything that is not a compile with -c, or a preprocessing with -E, of exactly one `.cu`
// file or `.cu.cpp` wrapper (a link, a plain .cpp, --version): emu-cxx runs those unchanged. A
// preprocessing's plan is step (a) alone, to the command's own output (`rewrite` and `compile`
// empty): the source as the CPU backend sees it (labgrade compares the lines it keeps with a
// GPU's compile, grader/build/backend_conditionals.h). A counted compile
// (-fsanitize=kernel-address) rewrites with --counted, refusing code the count cannot see, unless
// `refuse_uncounted` is false.
std::optional<CompilePlan> plan_compile(const std::vector<std::string>& command,
                                        const EmuPaths& paths, bool refuse_uncounted = true);

}  // namespace emu::cxx
