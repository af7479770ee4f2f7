// SubmissionBuilder with the real nvcc, emu-cxx, compiler, objcopy and linker of this build (the
// manifest's), on lab 03's interface: what the CPU backend's counted builds make of code the
// counts must see, and what the GPU backend's build leaves for labgrade to read. Neither needs a
// GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "backend.h"
#include "fatbin_ptx.h"
#include "fatbin_resources.h"
#include "manifest.h"
#include "ptx_constant_reads.h"
#include "student_image.h"
#include "submission_build.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// Lab 03 built by one backend in a folder of this process's own.
class RealBuild : public ::testing::Test {
 protected:
  explicit RealBuild(Backend backend) : backend_(backend) {}
  void SetUp() override {
    std::string error;
    if (!LoadManifest(DefaultManifestPath(), manifest_, error)) GTEST_SKIP() << error;
    const auto& libs = backend_ == Backend::kCpu ? manifest_.emu_libs : manifest_.gpu_libs;
    if (!(backend_ == Backend::kCpu ? manifest_.emu_backend : manifest_.gpu_backend) ||
        libs.count("03_tiled_matmul") == 0)
      GTEST_SKIP() << "this build has no " << ToString(backend_) << " backend for lab 03";
    root_ = fs::temp_directory_path() / ("labkit_real_build_" + std::string(ToString(backend_)) +
                                         "_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    spec_.id = "03_tiled_matmul";
    spec_.student_files = {"matmul.cu"};
    spec_.interface = "matmul_lab.cuh";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  BuildOutcome Build(const std::string& source) {
    std::ofstream(root_ / "src" / "matmul.cu") << source;
    SystemProcessRunner runner;
    SubmissionBuilder builder(runner, manifest_, spec_);
    return builder.Build((root_ / "src").string(), (root_ / "work").string(), backend_,
                         Flavour::kDefault);
  }
  Backend backend_;
  Manifest manifest_;
  LabSpec spec_;
  fs::path root_;
};

// The contract between emu-cxx's exit status and labgrade's stage, and a counted build of code
// whose C++ library templates call the copy builtins that the rewrite renames.
class RealCpuBuild : public RealBuild {
 protected:
  RealCpuBuild() : RealBuild(Backend::kCpu) {}
  // What the counted build's rewrite renamed in the kernels' calls, one "from to" a line.
  std::string KernelCalls() const {
    std::ifstream renames(root_ / "work" / "matmul.cu.o.kernel_calls");
    return std::string((std::istreambuf_iterator<char>(renames)), {});
  }
};

// What labgrade reads off the build's own fatbinaries in place of a second compile.
class RealGpuBuild : public RealBuild {
 protected:
  RealGpuBuild() : RealBuild(Backend::kGpu) {}
};

// The three functions lab 03's harness calls, with `body` inside the tiled kernel.
std::string Lab03(const std::string& includes, const std::string& body) {
  return includes +
         "#include \"matmul_lab.cuh\"\n"
         "__global__ void tiled(const float* A, const float* B, float* C, int m, int n, int k) "
         "{\n" +
         body +
         "}\n"
         "void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {\n"
         "  tiled<<<1, 1>>>(A, B, C, m, n, k);\n}\n"
         "void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {\n"
         "  tiled<<<1, 1>>>(A, B, C, m, n, k);\n}\n"
         "void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {\n"
         "  tiled<<<1, 1>>>(A, B, C, m, n, k);\n}\n";
}

TEST_F(RealCpuBuild, UncountedAccessIsNamedByEmuCxxsOwnStatus) {
  const BuildOutcome out = Build(
      Lab03("", "  float v;\n  asm(\"movss (%1), %0\" : \"=x\"(v) : \"r\"(A));\n  C[0] = v;\n"));
  EXPECT_EQ(out.stage, "uncounted_access") << out.message;
  EXPECT_NE(out.message.find("matmul.cu:4: error: inline assembly"), std::string::npos)
      << out.message;
}

TEST_F(RealCpuBuild, CopiesOfTheCxxLibraryAndTheCLibraryBuildAndAreRenamed) {
  const BuildOutcome out =
      Build(Lab03("#include <algorithm>\n#include <cstring>\n#include <vector>\n",
                  "  std::vector<char> bytes(static_cast<size_t>(n) + 1, 7);\n"
                  "  float row[64];\n"
                  "  std::copy(A, A + (n < 64 ? n : 64), row);\n"
                  "  memcpy(&C[0], row, sizeof(float) * (m > 0));\n"
                  "  C[1] = static_cast<float>(strlen(bytes.data()));\n"));
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::string text = KernelCalls();
  EXPECT_NE(text.find("memcpy __emu_device_memcpy\n"), std::string::npos) << text;
  EXPECT_NE(text.find("strlen __emu_guard_strlen\n"), std::string::npos) << text;
}

// A compare builtin of a size g++ learns late would be expanded inline, uncounted; it becomes the
// C library's call (emu-rewrite), which a kernel may not make (the guard's stub stops it).
TEST_F(RealCpuBuild, CompareBuiltinsStayCallsAndAreGuarded) {
  const BuildOutcome out =
      Build(Lab03("",
                  "  for (int i = 0; i < n; ++i)\n"
                  "    if (__builtin_memcmp(A + i, B + i, 4 * (m > 0)) < 0) C[0] = 1;\n"));
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::string text = KernelCalls();
  EXPECT_NE(text.find("memcmp __emu_guard_memcmp\n"), std::string::npos) << text;
}

// The linker keeps the first copy it meets of a template's instance, and labgrade puts the kit's
// archives first (AddKitFirst in submission_build.cpp): a student's inline explicit specialisation
// of a std member the harness instantiates too is discarded, and every caller gets the harness's.
// Lab 03's harness keeps device pointers in a std::unordered_map<const void*, unsigned long>
// (device_memory_budget.cpp), whose rehash is such a member (a red-team route of 2026-11-28).
TEST_F(RealCpuBuild, AStudentsSpecialisationOfAStdMemberTheHarnessUsesIsDiscarded) {
  const BuildOutcome out = Build(
      Lab03("#include <cstdio>\n#include <unordered_map>\n"
            "template <>\n__attribute__((used, noinline)) inline void\n"
            "std::__umap_hashtable<const void*, unsigned long>::_M_rehash(size_type n,\n"
            "                                                           const __rehash_state&) {\n"
            "  std::puts(\"the student's\");\n  _M_rehash_aux(n, std::true_type());\n}\n",
            "  C[0] = A[0] * B[0];\n"));
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::string section =
      ".text._ZNSt10_HashtableIPKvSt4pairIKS1_mESaIS4_ENSt8__detail10_Select1stESt8equal_toIS1_"
      "ESt4hashIS1_ENS6_18_Mod_range_hashingENS6_20_Default_ranged_hashENS6_20_Prime_rehash_"
      "policyENS6_17_Hashtable_traitsILb0ELb0ELb1EEEE9_M_rehashEmRKm";
  // The link map: the input sections discarded, then those kept, each followed by its file (on the
  // same line, or the next where the name is long).
  std::ifstream map(out.executable + ".map");
  ASSERT_TRUE(map) << "no link map beside " << out.executable;
  std::vector<std::string> lines;
  for (std::string line; std::getline(map, line);) lines.push_back(line);
  const auto kept_from = std::find(lines.begin(), lines.end(), "Linker script and memory map");
  ASSERT_NE(kept_from, lines.end());
  std::string discarded_file, kept_file;
  for (auto it = lines.begin(); it != lines.end(); ++it) {
    if (it->rfind(" " + section, 0) != 0) continue;
    const std::string rest = it->size() > section.size() + 1 || std::next(it) == lines.end()
                                 ? it->substr(section.size() + 1)
                                 : *std::next(it);
    (it < kept_from ? discarded_file : kept_file) = rest;
  }
  EXPECT_NE(discarded_file.find("matmul.cu.o"), std::string::npos)
      << "the student's copy is not among the discarded sections: '" << discarded_file << "'";
  EXPECT_NE(kept_file.find(".a("), std::string::npos)
      << "the copy linked is not the kit's: '" << kept_file << "'";
}

// The CPU backend tells __constant__ variables from __device__ ones (qualifiers.h's sections),
// lists them for the replay, and holds them to a GPU's 64 KiB as nvcc does.
TEST_F(RealCpuBuild, ConstantVariablesAreListedApartFromDeviceOnes) {
  const BuildOutcome out = Build(
      "__constant__ int c_side = 16;\n__constant__ const float c_scale[4] = {1, 2, 3, 4};\n"
      "__device__ float d_table[8];\n" +
      Lab03("", "  C[0] = c_scale[m & 3] * c_side + d_table[n & 7];\n"));
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  std::ifstream image_file(out.executable + ".image.json");
  const nlohmann::json image = nlohmann::json::parse(image_file);
  std::ifstream symbols_file(StudentSymbolsPath(out.executable));
  const nlohmann::json symbols = nlohmann::json::parse(symbols_file);
  auto range = [&](const std::string& name) {
    return nlohmann::json::array({symbols.at(name)[0], symbols.at(name)[1]});
  };
  const nlohmann::json& constants = image.at("constants");
  EXPECT_NE(std::find(constants.begin(), constants.end(), range("c_side")), constants.end());
  EXPECT_NE(std::find(constants.begin(), constants.end(), range("_ZL7c_scale")), constants.end());
  EXPECT_EQ(std::find(constants.begin(), constants.end(), range("d_table")), constants.end());
  const nlohmann::json& variables = image.at("variables");
  EXPECT_NE(std::find(variables.begin(), variables.end(), range("d_table")), variables.end());
}

TEST_F(RealCpuBuild, MoreConstantMemoryThanAGpuHasIsACompileError) {
  const BuildOutcome out =
      Build("__constant__ float c_operands[16384 + 1];\n" + Lab03("", "  C[0] = c_operands[0];\n"));
  EXPECT_EQ(out.stage, "compile") << out.message;
  EXPECT_NE(out.message.find("c_operands, 65540 bytes"), std::string::npos) << out.message;
}

// CUDA headers whose features the CPU backend lacks say so where they are included or used;
// found in the system's include folders instead (CUDA's own, which declare nothing outside nvcc),
// they made the first use of their names the error ("not a namespace-name").
TEST_F(RealCpuBuild, UnsupportedCudaHeadersSaySoThemselves) {
  const BuildOutcome wmma = Build(Lab03("#include <mma.h>\n", "  C[0] = 0;\n"));
  EXPECT_EQ(wmma.stage, "compile") << wmma.message;
  EXPECT_NE(wmma.message.find("<mma.h> (tensor-core WMMA, nvcuda::wmma) is not supported on the "
                              "CPU backend"),
            std::string::npos)
      << wmma.message;
  const BuildOutcome tiles =
      Build(Lab03("#include <cooperative_groups.h>\n",
                  "  auto block = cooperative_groups::this_thread_block();\n"
                  "  auto warp = cooperative_groups::tiled_partition<32>(block);\n"
                  "  C[0] = 0;\n"));
  EXPECT_EQ(tiles.stage, "compile") << tiles.message;
  EXPECT_NE(tiles.message.find("cooperative_groups::tiled_partition is not supported on the CPU "
                               "backend"),
            std::string::npos)
      << tiles.message;
}

// The thread block of cooperative groups stands for threadIdx and __syncthreads().
TEST_F(RealCpuBuild, CooperativeGroupsThreadBlockBuilds) {
  const BuildOutcome out =
      Build(Lab03("#include <cooperative_groups.h>\n",
                  "  auto block = cooperative_groups::this_thread_block();\n"
                  "  block.sync();\n"
                  "  cooperative_groups::sync(block);\n"
                  "  C[block.thread_rank()] = block.size() + block.group_index().x;\n"));
  EXPECT_TRUE(out.ok) << out.stage << ": " << out.message;
}

// nvcc 13 compresses PTX unless told not to, and labgrade reads it and the cubins as stored:
// the kit's compile leaves both readable, so the constant-memory check and the resource report
// come from the code that runs.
TEST_F(RealGpuBuild, TheBuildsOwnPtxAndCubinsCanBeRead) {
  const BuildOutcome out = Build("__constant__ int c_side;\n" +
                                 Lab03("",
                                       "  __shared__ float tile[24];\n  tile[threadIdx.x] = A[0];\n"
                                       "  __syncthreads();\n  C[0] = tile[c_side];\n"));
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::optional<std::string> ptx = PtxOfBuild(out.executable);
  ASSERT_TRUE(ptx.has_value());
  EXPECT_EQ(KernelsReadingConstantMemory(*ptx), std::set<std::string>{"_Z5tiledPKfS0_Pfiii"});
  const std::optional<ResourceReport> resources = ResourcesOfBuild(out.executable);
  ASSERT_TRUE(resources.has_value());
  ASSERT_EQ(resources->kernels.size(), 1u);
  EXPECT_EQ(resources->kernels[0].static_shared_bytes, 96);
  EXPECT_EQ(resources->kernels[0].barriers, 1);
}

// What nvcc really writes (-lineinfo's .loc lines, a printf's call block closing in column 0, a
// __noinline__ helper): the kernel whose only constant read follows them still counts.
TEST_F(RealGpuBuild, ConstantReadsAfterCallsAndInHelpersAreFound) {
  const BuildOutcome out = Build(
      "#include <cstdio>\n__constant__ int c_side;\n"
      "__device__ __noinline__ int side() { return c_side; }\n"
      "__global__ void helped(int* out) { out[0] = side(); }\n" +
      Lab03("", "  if (m < 0) printf(\"debug %d\\n\", m);\n  C[0] = A[0] * c_side;\n") +
      "void launch_helped(int* p) { helped<<<1, 1>>>(p); }\n");
  ASSERT_TRUE(out.ok) << out.stage << ": " << out.message;
  const std::optional<std::string> ptx = PtxOfBuild(out.executable);
  ASSERT_TRUE(ptx.has_value());
  EXPECT_EQ(KernelsReadingConstantMemory(*ptx),
            (std::set<std::string>{"_Z5tiledPKfS0_Pfiii", "_Z6helpedPi"}));
}

}  // namespace
}  // namespace labkit
