// emu-cxx: compiler launcher for the CPU backend.
//   emu-cxx <c++ compiler> <compile arguments> -c IN -o OUT
// The same shape CMake's CXX_COMPILER_LAUNCHER and labgrade use. Without the compiler (the first
// argument an option) the C++ compiler the kit was built with is used, or LABKIT_EMU_CXX. The paths
// of emu-rewrite, the force-included header and the runtime's include folder are baked in at build
// time; the environment variables LABKIT_EMU_REWRITE, LABKIT_EMU_HEADER and LABKIT_EMU_INCLUDE
// override them (e.g. for an installed kit), LABKIT_EMU_KEEP_TEMPS=1 keeps the intermediate
// files, and LABKIT_EMU_ALLOW_UNCOUNTED=1 lets a counted compile accept code its count cannot see
// (compile_plan.h).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "emu_cxx.h"

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr
        << "usage: emu-cxx <c++ compiler> <arguments...>\n"
           "  compiles each C++/CUDA source given with -c for the CPU backend; runs any other\n"
           "  command (a link, -E, --version) unchanged\n";
    return 2;
  }
  emu::cxx::Options options;
  options.paths.rewrite = env_or("LABKIT_EMU_REWRITE", EMU_DEFAULT_REWRITE);
  options.paths.header = env_or("LABKIT_EMU_HEADER", EMU_DEFAULT_HEADER);
  options.paths.include_dir = env_or("LABKIT_EMU_INCLUDE", EMU_DEFAULT_INCLUDE);
  options.default_compiler = env_or("LABKIT_EMU_CXX", EMU_DEFAULT_CXX);
  options.keep_temporaries = env_or("LABKIT_EMU_KEEP_TEMPS", "0") != std::string("0");
  options.allow_uncounted = env_or("LABKIT_EMU_ALLOW_UNCOUNTED", "0") != std::string("0");
  emu::cxx::PosixCommandRunner runner;
  return emu::cxx::run_launcher(std::vector<std::string>(argv + 1, argv + argc), options, runner);
}
