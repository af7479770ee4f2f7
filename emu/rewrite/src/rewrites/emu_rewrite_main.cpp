// emu-rewrite IN OUT: rewrites one preprocessed translation unit for the CPU backend (rewrite.h).
// Warnings go to stderr. The exit status is non-zero when a file cannot be read or written, and 1
// when the source is not valid CUDA in a way the rewrite found (its errors, in nvcc's words, on
// stderr): then nothing is compiled. With --counted (a compile that counts memory accesses), code
// the count cannot see is refused too (uncounted_access.h), with status kExitUncountedAccess.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "rewrite.h"

int main(int argc, char** argv) {
  const bool counted = argc == 4 && std::string(argv[1]) == "--counted";
  if (argc != 3 && !counted) {
    std::cerr << "usage: emu-rewrite [--counted] IN OUT   (IN: output of g++ -E; '-' for "
                 "stdin/stdout)\n";
    return 2;
  }
  const std::string in_path = argv[argc - 2], out_path = argv[argc - 1];
  std::stringstream in;
  if (in_path == "-") {
    in << std::cin.rdbuf();
  } else {
    std::ifstream file(in_path, std::ios::binary);
    if (!file) {
      std::cerr << "emu-rewrite: cannot read " << in_path << "\n";
      return 1;
    }
    in << file.rdbuf();
  }
  emu::rewrite::RewriteResult result;
  try {
    result = emu::rewrite::rewrite_source(in.str(), counted);
  } catch (const std::exception& e) {
    // Never expected; if it happens, fail loudly rather than compile unrewritten code.
    std::cerr << "emu-rewrite: internal error on " << in_path << ": " << e.what() << "\n";
    return 3;
  }
  for (const auto& w : result.warnings) std::cerr << emu::rewrite::format_warning(w) << "\n";
  for (const auto& e : result.refused) std::cerr << emu::rewrite::format_error(e) << "\n";
  for (const auto& e : result.errors) std::cerr << emu::rewrite::format_error(e) << "\n";
  if (!result.errors.empty()) return 1;
  if (!result.refused.empty()) return emu::rewrite::kExitUncountedAccess;
  if (out_path == "-") {
    std::cout << result.text;
    return std::cout.flush() ? 0 : 1;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << result.text;
  if (!out.flush()) {
    std::cerr << "emu-rewrite: cannot write " << out_path << "\n";
    return 1;
  }
  return 0;
}
