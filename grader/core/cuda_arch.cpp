#include "cuda_arch.h"

#include <cctype>

namespace labkit {

namespace {

constexpr const char* kDefaultArch = "90";  // the H100 the CPU backend models

// "90", "90a", "100f", "120": digits, then at most one letter (CUDA's arch-specific suffixes).
bool IsArchNumber(const std::string& s) {
  std::size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits < 2) return false;
  return s.size() == digits ||
         (s.size() == digits + 1 && std::isalpha(static_cast<unsigned char>(s[digits])));
}

}  // namespace

CudaArch ResolveCudaArch(const std::string& cmake_architectures) {
  // A list ("80;90") builds for each; the first is the target. "-real"/"-virtual" only say
  // which of SASS and PTX CMake embeds.
  std::string first = cmake_architectures.substr(0, cmake_architectures.find(';'));
  if (first == "native" || first == "all" || first == "all-major")
    return {"-arch=" + first, std::string("-arch=compute_") + kDefaultArch};
  first = first.substr(0, first.find('-'));
  if (!IsArchNumber(first)) first = kDefaultArch;
  return {"-arch=sm_" + first, "-arch=compute_" + first};
}

}  // namespace labkit
