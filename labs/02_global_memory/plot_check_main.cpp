// lab02_plot_check TABLE SVG: exit 0 when a copy sweep's table and plot have the kit's structure
// (bandwidth_plot.h), else 1 with what is wrong. Used by the GPU test on the files of a real run.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "bandwidth_plot.h"

namespace {
std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TABLE SVG\n", argv[0]);
    return 2;
  }
  const std::string why = lab02::CheckBandwidthFiles(ReadAll(argv[1]), ReadAll(argv[2]));
  if (!why.empty()) {
    std::printf("%s\n", why.c_str());
    return 1;
  }
  std::printf("%s and %s have the kit's structure\n", argv[1], argv[2]);
  return 0;
}
