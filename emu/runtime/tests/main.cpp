// The runtime tests' main: every process of this binary (death-test children re-execute it) writes
// diagnostics to the same report file, which the tests read back.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "test_util.h"

namespace emu_test {
std::string report_path() { return getenv("LABKIT_EMU_REPORT"); }

size_t report_size() {
  std::ifstream in(report_path(), std::ios::binary | std::ios::ate);
  return in ? static_cast<size_t>(in.tellg()) : 0;
}

std::string report_since(size_t mark) {
  std::ifstream in(report_path(), std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return mark < text.size() ? text.substr(mark) : std::string();
}
}  // namespace emu_test

int main(int argc, char** argv) {
  // Inherited by death-test children, so parent and child share the file (0: keep a parent's).
  const std::string path = "/tmp/emu_runtime_tests." + std::to_string(getpid()) + ".jsonl";
  setenv("LABKIT_EMU_REPORT", path.c_str(), 0);
  emu_test::write_resource_report();
  testing::InitGoogleTest(&argc, argv);
  // Children re-execute the binary instead of fork()ing a process that has worker threads.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int result = RUN_ALL_TESTS();
  if (getenv("LABKIT_EMU_REPORT") == path) unlink(path.c_str());
  return result;
}
