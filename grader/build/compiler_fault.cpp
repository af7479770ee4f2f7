// SubmissionBuilder::CompilerFault: a file of the kit's own compiled as a student's file was, so
// that a compiler that fails on everything is told apart from a submission that does not compile.
#include <filesystem>
#include <fstream>

#include "submission_build.h"

namespace labkit {
namespace fs = std::filesystem;

std::string SubmissionBuilder::CompilerFault(const std::string& work_dir, Backend backend,
                                             Flavour flavour) const {
  const std::string dir = work_dir + "/compiler_check";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string source = dir + "/kit_probe.cu";
  {
    std::ofstream probe(source, std::ios::trunc);
    probe << "// Written by labgrade: compiles wherever the kit's compiler works.\n"
             "__global__ void labkit_compiler_probe(float* out) { out[threadIdx.x] = 1.0f; }\n";
    if (!probe) return "the grader could not write its compiler check in " + dir;
  }
  const ProcessResult r = Compile(source, dir + "/kit_probe.o", backend, flavour);
  return r.Succeeded() ? "" : r.output;
}

}  // namespace labkit
