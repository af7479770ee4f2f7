// The policies labgrade grades under: what a submission's build and runs are shown, and what is
// hidden from them, checked as data without running anything.
#include "sandbox_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace labkit {
namespace {
namespace fs = std::filesystem;

TEST(Sandbox, GradingPolicyShowsOnlyWhatTheBuildNeeds) {
  Manifest m;
  m.source_dir = "/kit";
  m.build_dir = "/kit/build";
  m.data_dir = "/kit/build/data";
  m.nvcc = "/usr/local/cuda/bin/nvcc";
  m.emu_backend = true;
  m.emu_cxx = "/kit/build/emu-tools/emu-cxx";
  m.common_include = "/kit/common/include";
  m.emu_libs["03_x"] = {"/kit/build/labs/03_x/libh.a"};
  const SandboxPolicy p = GradingSandboxPolicy(m, "03_x", "/subs/alice", "/work/alice", {"/out"});
  auto has = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  EXPECT_EQ(p.scratch_dir, "/work/alice");
  for (const char* path : {"/subs/alice", "/kit/labs/03_x", "/kit/common/include",
                           "/kit/build/emu-tools", "/kit/build/labs/03_x/libh.a"})
    EXPECT_TRUE(has(p.read_only, path)) << path;
  EXPECT_FALSE(has(p.read_only, "/kit/build"));  // it holds objects built from solutions/
  EXPECT_FALSE(has(p.read_only, "/subs"));       // other students
  for (const char* path : {"/kit/solutions", "/kit/.git", "/kit/build/data", "/out"})
    EXPECT_TRUE(has(p.hidden, path)) << path;
  EXPECT_FALSE(p.network);
}

// A compiler driver that starts the real compiler beside it (a wrapper script, as on some GPU
// machines: /opt/gcc/bin/g++ runs /opt/gcc/bin/g++-real) compiled nothing in the sandbox while
// only the driver's own file was shown: every submission got "does not compile".
TEST(Sandbox, GradingPolicyShowsTheCompilersWholeInstallation) {
  const fs::path root =
      fs::path(::testing::TempDir()) / ("labgrade_sandbox_policy_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "gcc/bin");
  fs::create_directories(root / "wrappers");
  std::ofstream(root / "gcc/bin/g++-real") << "";
  fs::create_symlink(root / "gcc/bin/g++-real", root / "wrappers/g++");
  Manifest m;
  m.source_dir = "/kit";
  m.cxx = (root / "wrappers/g++").string();
  m.nvcc = "/usr/local/cuda/bin/nvcc";
  const SandboxPolicy p = GradingSandboxPolicy(m, "03_x", "/subs/alice", "/work/alice");
  auto has = [&](const fs::path& path) {
    return std::find(p.read_only.begin(), p.read_only.end(), path.string()) != p.read_only.end();
  };
  EXPECT_TRUE(has(root / "gcc"));       // the resolved driver's installation, bin/..
  EXPECT_TRUE(has(root / "wrappers"));  // the named driver's folder (not a bin/)
  EXPECT_TRUE(has("/usr/local/cuda"));
  EXPECT_EQ(ToolInstallation(""), std::vector<std::string>{});
  fs::remove_all(root);
}

}  // namespace
}  // namespace labkit
