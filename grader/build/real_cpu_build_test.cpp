// SubmissionBuilder with the real emu-cxx, compiler, objcopy and linker of this build (the
// manifest's), on lab 03's interface: what the CPU backend's counted builds make of code the
// counts must see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "manifest.h"
#include "student_image.h"
#include "submission_build.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// The real emu-cxx, compiler, objcopy and linker of this build (the manifest's), on lab 03: the
// contract between emu-cxx's exit status and labgrade's stage, and a counted build of code whose
// C++ library templates call the copy builtins that the rewrite renames.
class RealCpuBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    if (!LoadManifest(DefaultManifestPath(), manifest_, error)) GTEST_SKIP() << error;
    if (!manifest_.emu_backend || manifest_.emu_libs.count("03_tiled_matmul") == 0)
      GTEST_SKIP() << "this build has no CPU backend for lab 03";
    root_ = fs::temp_directory_path() / ("labkit_real_build_" + std::to_string(getpid()));
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
    return builder.Build((root_ / "src").string(), (root_ / "work").string(), Backend::kCpu,
                         Flavour::kDefault);
  }
  Manifest manifest_;
  LabSpec spec_;
  fs::path root_;
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
  std::ifstream renames(root_ / "work" / "matmul.cu.o.kernel_calls");
  const std::string text((std::istreambuf_iterator<char>(renames)), {});
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
  std::ifstream renames(root_ / "work" / "matmul.cu.o.kernel_calls");
  const std::string text((std::istreambuf_iterator<char>(renames)), {});
  EXPECT_NE(text.find("memcmp __emu_guard_memcmp\n"), std::string::npos) << text;
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

}  // namespace
}  // namespace labkit
