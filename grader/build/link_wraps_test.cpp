// The harness's table of link-time wraps (common/harness/link_wraps.h) against what uses it: the
// link line labgrade builds, the wrappers in the built harness libraries, the runtime they wrap,
// and the symbol check that keeps a submission from going around them.
#include "link_wraps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "fake_compile_test_util.h"
#include "manifest.h"
#include "submission_build.h"
#include "symbol_policy.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

template <std::size_t N>
std::set<std::string> Names(const char* const (&table)[N]) {
  return {std::begin(table), std::end(table)};
}

// Answers `nm` with a scripted listing and every other command with success; keeps the commands.
class ScriptedTools : public ProcessRunner {
 public:
  std::string nm_output;
  std::vector<Command> commands;
  ProcessResult Run(const Command& command) override {
    commands.push_back(command);
    WriteDependencyList(command);
    WritePreprocessedOutput(command);
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    if (command.argv.at(0) == "nm") r.output = nm_output;
    return r;
  }
};

struct Submission {
  // One folder per process: ctest -j runs these tests side by side.
  std::string dir =
      fs::temp_directory_path() / ("labkit_link_wraps_test_" + std::to_string(getpid()));
  LabSpec spec;
  Manifest manifest;
  Submission() {
    fs::create_directories(dir);
    std::ofstream(dir + "/matmul.cu") << "// empty\n";
    spec.id = "03_tiled_matmul";
    spec.student_files = {"matmul.cu"};
    manifest.nvcc = "nvcc";
    manifest.cxx = "g++";
    manifest.emu_backend = true;
    manifest.cuda_architectures = "90";
    manifest.gpu_libs[spec.id] = {"lab.a", "harness.a"};
    manifest.emu_libs[spec.id] = {"lab.a", "harness.a", "emu.a"};
  }
  ~Submission() { fs::remove_all(dir); }
};

TEST(LinkWraps, TheLinkLineWrapsEveryNameOfTheTable) {
  Submission s;
  for (Backend backend : {Backend::kGpu, Backend::kCpu}) {
    ScriptedTools tools;
    SubmissionBuilder builder(tools, s.manifest, s.spec);
    const BuildOutcome out = builder.Build(s.dir, s.dir + "/build", backend, Flavour::kDefault);
    ASSERT_TRUE(out.ok) << out.message;
    // The link is the last command but the nm listings of the program (student_image.h).
    const auto last_tool = std::find_if(tools.commands.rbegin(), tools.commands.rend(),
                                        [](const Command& c) { return c.argv.at(0) != "nm"; });
    ASSERT_NE(last_tool, tools.commands.rend());
    const std::vector<std::string>& link = last_tool->argv;
    std::set<std::string> wrapped;
    for (std::size_t i = 0; i < link.size(); ++i) {
      const std::string& arg = link[i];
      if (backend == Backend::kGpu && arg.rfind("--wrap=", 0) == 0) {
        EXPECT_EQ(link.at(i - 1), "-Xlinker") << arg;  // nvcc hands it on to the linker
        wrapped.insert(arg.substr(7));
      }
      if (backend == Backend::kCpu && arg.rfind("-Wl,--wrap=", 0) == 0)
        wrapped.insert(arg.substr(11));
    }
    EXPECT_EQ(wrapped, backend == Backend::kGpu ? Names(kGpuLinkWraps) : Names(kEmuLinkWraps));
  }
}

TEST(LinkWraps, ASubmissionMayNeitherReplaceNorBypassAWrapper) {
  for (Backend backend : {Backend::kGpu, Backend::kCpu}) {
    EXPECT_TRUE(JudgeSymbol({"__wrap_cudaMemcpy", 'T'}, backend));
    EXPECT_TRUE(JudgeSymbol({"__real_cudaMemcpy", 'T'}, backend));
    EXPECT_TRUE(JudgeSymbol({"__real_cudaMemcpy", 'U'}, backend));
    EXPECT_TRUE(JudgeSymbol({"__real__Z10cudaMemcpyPvPKvm14cudaMemcpyKind", 'U'}, backend));
  }
  // Calling CUDA is what a submission does.
  EXPECT_FALSE(JudgeSymbol({"cudaMemcpy", 'U'}, Backend::kGpu));
  EXPECT_FALSE(JudgeSymbol({LABKIT_EMU_MEMCPY, 'U'}, Backend::kCpu));

  Submission s;
  ScriptedTools tools;
  // nm -g: a definition has an address, a reference ("U") has none.
  tools.nm_output =
      "0000000000000000 T _Z16matmul_tiled_anyPKfS0_Pfiii\n"
      "                 U cudaMemcpy\n"
      "                 U __real_cudaMemcpy\n";
  SubmissionBuilder builder(tools, s.manifest, s.spec);
  const BuildOutcome out = builder.Build(s.dir, s.dir + "/build", Backend::kGpu, Flavour::kDefault);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.stage, "forbidden_symbol");
  EXPECT_NE(out.message.find("matmul.cu uses __real_cudaMemcpy, which the grader does not allow"),
            std::string::npos)
      << out.message;
}

// Global symbols an archive defines (nm -g --defined-only), empty when nm cannot read it.
std::set<std::string> DefinedIn(const std::vector<std::string>& archives) {
  std::set<std::string> names;
  for (const std::string& archive : archives) {
    const std::string listing =
        fs::temp_directory_path() / ("labkit_link_wraps_nm_" + std::to_string(getpid()) + ".txt");
    const std::string cmd =
        "nm -g --defined-only '" + archive + "' > '" + listing + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) continue;
    std::ifstream in(listing);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
      if (f.size() == 3) names.insert(f[2]);
    }
    fs::remove(listing);
  }
  return names;
}

// Each table name has a wrapper in the built harness, each wrapper a name in the table, and the
// runtime defines what is wrapped (a changed signature in emu changes its mangled name).
void ExpectTableMatchesLibraries(const std::set<std::string>& table,
                                 const std::vector<std::string>& libs) {
  for (const std::string& lib : libs)
    if (!fs::exists(lib)) GTEST_SKIP() << lib << " is not built";
  const std::set<std::string> defined = DefinedIn(libs);
  if (defined.empty()) GTEST_SKIP() << "nm cannot read the harness libraries";
  for (const std::string& name : table) {
    EXPECT_TRUE(defined.count("__wrap_" + name)) << "no wrapper for " << name;
    EXPECT_TRUE(defined.count(name)) << "the runtime defines no " << name;
  }
  for (const std::string& symbol : defined)
    if (symbol.rfind("__wrap_", 0) == 0)
      EXPECT_TRUE(table.count(symbol.substr(7))) << symbol << " is not on the link line";
}

Manifest BuiltManifest() {
  Manifest manifest;
  std::string error;
  if (!LoadManifest(DefaultManifestPath(), manifest, error)) return {};
  return manifest;
}

TEST(LinkWraps, EveryEmuWrapperIsInTheTable) {
  const Manifest m = BuiltManifest();
  if (!m.emu_backend || m.emu_libs.empty()) GTEST_SKIP() << "no CPU backend in this build";
  std::vector<std::string> libs = m.emu_libs.begin()->second;
  libs.erase(libs.begin());  // the lab's own table; the wrappers and emu's runtime follow
  ExpectTableMatchesLibraries(Names(kEmuLinkWraps), libs);
}

TEST(LinkWraps, EveryGpuWrapperIsInTheTable) {
  const Manifest m = BuiltManifest();
  if (!m.gpu_backend || m.gpu_libs.empty()) GTEST_SKIP() << "no GPU backend in this build";
  std::vector<std::string> libs = m.gpu_libs.begin()->second;
  libs.erase(libs.begin());  // the lab's own table; the wrappers follow
  // The runtime's own definitions: CUDA's static runtime, beside nvcc.
  libs.push_back(
      (fs::path(m.nvcc).parent_path().parent_path() / "lib64/libcudart_static.a").string());
  ExpectTableMatchesLibraries(Names(kGpuLinkWraps), libs);
}

}  // namespace
}  // namespace labkit
