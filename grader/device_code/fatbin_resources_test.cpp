#include "fatbin_resources.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "kit_replay_program.h"
#include "manifest.h"
#include "process.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// Kernels of every kind the resources are read for: none, odd and templated __shared__ arrays,
// dynamic shared memory alone, named barriers beside __syncthreads(), a stack frame from a local
// array and from spills, a non-inlined device function, a kernel of internal linkage.
constexpr char kKernels[] = R"(
__global__ void no_shared(float* x) { x[threadIdx.x] *= 2; }
__global__ void odd_shared(float* x) {
  __shared__ char a[13]; __shared__ double b[3];
  a[threadIdx.x % 13] = threadIdx.x; b[threadIdx.x % 3] = x[0]; __syncthreads();
  x[threadIdx.x] = a[(threadIdx.x + 1) % 13] + b[(threadIdx.x + 1) % 3];
}
__global__ void two_barriers(float* x) {
  __shared__ float t[64];
  t[threadIdx.x] = x[threadIdx.x];
  asm volatile("bar.sync 1, 64;");
  x[threadIdx.x] = t[63 - threadIdx.x];
  __syncthreads();
  x[threadIdx.x] += 1;
}
__global__ void local_array(float* x, int i) {
  float a[40];
  for (int j = 0; j < 40; ++j) a[j] = x[j * i];
  x[threadIdx.x] = a[(threadIdx.x * i) % 40];
}
__global__ void __launch_bounds__(1024, 2) spills(float* x) {
  float acc[64];
  #pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = x[j * blockDim.x + threadIdx.x];
  float s = 0;
  #pragma unroll
  for (int r = 0; r < 8; ++r)
  #pragma unroll
    for (int j = 0; j < 64; ++j) { acc[j] = acc[j] * acc[(j + r) % 64] + 1.0f; s += acc[j]; }
  x[threadIdx.x] = s;
}
extern __shared__ float dyn[];
__global__ void dynamic_only(float* x) {
  dyn[threadIdx.x] = x[0]; __syncthreads(); x[threadIdx.x] = dyn[threadIdx.x ^ 1];
}
__device__ __noinline__ float helper(float* x, int i) {
  float a[8]; for (int j = 0; j < 8; ++j) a[j] = x[j + i]; return a[i % 8];
}
__global__ void uses_helper(float* x) { x[threadIdx.x] = helper(x, threadIdx.x); }
template <int T> __global__ void tile(float* x) {
  __shared__ float s[T]; s[threadIdx.x % T] = x[0]; __syncthreads(); x[threadIdx.x] = s[(threadIdx.x + 1) % T];
}
template __global__ void tile<4>(float*);
template __global__ void tile<32>(float*);
static __global__ void internal_kernel(float* x) { x[0] = 1; }
void launch(float* x) { internal_kernel<<<1, 1>>>(x); }
)";
constexpr std::size_t kKernelCount = 10;  // the __global__ functions above, instances included

// The kit's nvcc (the manifest's): each source compiled as a GPU build compiles it, its
// fatbinary cut out as the build cuts it, and ptxas's report on its PTX, for one architecture.
class FatbinResources : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    if (!LoadManifest(DefaultManifestPath(), manifest_, error)) GTEST_SKIP() << error;
    if (manifest_.nvcc.empty()) GTEST_SKIP() << "no nvcc in this build";
    dir_ = fs::temp_directory_path() / ("labkit_fatbin_resources_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // The command's output, or nullopt (a failure of the test) when it did not succeed.
  std::optional<std::string> Run(const std::vector<std::string>& argv) {
    Command c;
    c.argv = argv;
    c.timeout_seconds = 120;
    const ProcessResult r = runner_.Run(c);
    EXPECT_TRUE(r.Succeeded()) << argv.front() << ": " << r.output;
    if (!r.Succeeded()) return std::nullopt;
    return r.output;
  }
  // Both reports of `source` for sm_`sm`, compared kernel by kernel. ptxas prints no
  // __launch_bounds__: `bounds` holds those of the kernels (by function name) that have some.
  void Compare(const std::string& source, const std::string& include, int sm,
               const std::map<std::string, int64_t>& bounds = {}) {
    const std::string arch = "sm_" + std::to_string(sm), base = (dir_ / arch).string();
    for (const char* made : {".o", ".fatbin", ".ptx"}) fs::remove(base + made);
    std::optional<std::string> text;
    if (!Run({manifest_.nvcc, "-c", "-std=c++17", "-O3", "-lineinfo", "-arch=" + arch,
              "-I" + include, "-o", base + ".o", source}) ||
        !Run({"objcopy", "-O", "binary", "--only-section=.nv_fatbin", base + ".o",
              base + ".fatbin"}) ||
        !Run({manifest_.nvcc, "-ptx", "-std=c++17", "-O3", "-arch=compute_" + std::to_string(sm),
              "-I" + include, source, "-o", base + ".ptx"}) ||
        !(text = Run({(fs::path(manifest_.nvcc).parent_path() / "ptxas").string(), "-v",
                      "-arch=" + arch, base + ".ptx", "-o", "/dev/null"})))
      return;
    const auto ptxas = ParsePtxasReport(*text);
    ASSERT_TRUE(ptxas.ok()) << ptxas.error();
    std::ifstream in(base + ".fatbin", std::ios::binary);
    const std::vector<char> fatbin((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
    const std::optional<ResourceReport> read = ResourcesInFatbin(fatbin);
    ASSERT_TRUE(read.has_value()) << source << " for " << arch;
    ASSERT_EQ(read->kernels.size(), ptxas->kernels.size()) << source << " for " << arch;
    for (const KernelResources& want : ptxas->kernels) {
      const std::vector<const KernelResources*> found = read->Find(want.mangled);
      ASSERT_EQ(found.size(), 1u) << want.mangled << " for " << arch;
      const KernelResources& got = *found.front();
      const std::string where = want.mangled + " for " + arch;
      EXPECT_EQ(got.arch, want.arch) << where;
      EXPECT_EQ(got.registers, want.registers) << where;
      EXPECT_EQ(got.barriers, want.barriers) << where;
      EXPECT_EQ(got.static_shared_bytes, want.static_shared_bytes) << where;
      EXPECT_EQ(got.local_bytes, want.local_bytes) << where;
      const auto bound = bounds.find(FunctionName(want.mangled));
      EXPECT_EQ(got.max_threads, bound == bounds.end() ? want.max_threads
                                                       : std::min(want.max_threads, bound->second))
          << where;
    }
  }
  Manifest manifest_;
  SystemProcessRunner runner_;
  fs::path dir_;
};

// Before and after the 1 KiB that sm_90 on lays into each kernel's shared section.
TEST_F(FatbinResources, AgreeWithPtxasOnKernelsOfEveryKind) {
  const std::string source = (dir_ / "kernels.cu").string();
  std::ofstream(source) << kKernels;
  for (int sm : {80, 90, 100}) Compare(source, dir_.string(), sm);
}

// cudaFuncGetAttributes' maxThreadsPerBlock holds a kernel's __launch_bounds__ (lab 04's
// suggested block size is capped by it), which ptxas's report does not print.
TEST_F(FatbinResources, AKernelsLaunchBoundsLimitItsThreadsABlock) {
  const std::string source = (dir_ / "bounded.cu").string();
  std::ofstream(source) << R"(
__global__ void __launch_bounds__(256) bounded(float* x) { x[threadIdx.x] *= 2; }
__global__ void __launch_bounds__(96, 4) bounded_with_blocks(float* x) { x[threadIdx.x] *= 2; }
__global__ void __launch_bounds__(1024) unbounded(float* x) { x[threadIdx.x] *= 2; }
)";
  Compare(source, dir_.string(), 90,
          {{"bounded", 256}, {"bounded_with_blocks", 96}, {"unbounded", 1024}});
}

TEST_F(FatbinResources, AgreeWithPtxasOnTheLabsSolutions) {
  for (const char* lab : {"01_first_kernels", "03_tiled_matmul", "04_occupancy"})
    for (const fs::directory_entry& f :
         fs::directory_iterator(manifest_.source_dir + "/solutions/" + lab))
      if (f.path().extension() == ".cu") Compare(f.path().string(), manifest_.LabDir(lab), 90);
}

// A build's resources come from the fatbinaries its list names (kit_replay_program.h), all of
// them; a list that is missing, or names a file that is not there, gives none (ptxas then).
TEST_F(FatbinResources, ABuildsResourcesComeFromTheFatbinariesItsListNames) {
  const std::string source = (dir_ / "kernels.cu").string();
  std::ofstream(source) << kKernels;
  Compare(source, dir_.string(), 90);
  const std::string fatbin = (dir_ / "sm_90.fatbin").string();
  const std::string program = (dir_ / "program").string();
  std::ofstream(DeviceCodePath(program)) << nlohmann::json({{"fatbins", {fatbin, fatbin}}}).dump();
  const std::optional<ResourceReport> both = ResourcesOfBuild(program);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->kernels.size(), 2 * kKernelCount);
  std::ofstream(DeviceCodePath(program))
      << nlohmann::json({{"fatbins", {fatbin, fatbin + "x"}}}).dump();
  EXPECT_FALSE(ResourcesOfBuild(program).has_value());
  EXPECT_FALSE(ResourcesOfBuild((dir_ / "no_program").string()).has_value());
}

TEST(FatbinResourcesBytes, WhatIsNoFatbinOrNoCubinIsNotRead) {
  EXPECT_FALSE(ResourcesInFatbin({}).has_value());
  EXPECT_FALSE(ResourcesInFatbin(std::vector<char>(64, 0)).has_value());
  // A fatbinary's header with no entry after it: no cubin, so nothing known of what would run.
  std::vector<char> empty(16, 0);
  const uint32_t magic = 0xBA55ED50;
  const uint16_t header = 16;
  std::memcpy(empty.data(), &magic, 4);
  std::memcpy(empty.data() + 6, &header, 2);
  EXPECT_FALSE(ResourcesInFatbin(empty).has_value());
}

}  // namespace
}  // namespace labkit
