#include "resource_report.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// Real output of CUDA 13.0's `nvcc -c -arch=sm_90 -Xptxas -v` on this file:
//
//   #define TILE 16
//   __constant__ float kScale[16];
//   __global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int m, int n, int
//   k) {
//     __shared__ float As[TILE][TILE];
//     __shared__ float Bs[TILE][TILE];
//     int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
//     float acc = 0;
//     for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
//       As[threadIdx.y][threadIdx.x] = (r < m && t * TILE + threadIdx.x < n) ? A[r * n + t * TILE +
//       threadIdx.x] : 0.f; Bs[threadIdx.y][threadIdx.x] = (c < k && t * TILE + threadIdx.y < n) ?
//       B[(t * TILE + threadIdx.y) * k + c] : 0.f;
//       __syncthreads();
//       for (int i = 0; i < TILE; ++i) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
//       __syncthreads();
//     }
//     if (r < m && c < k) C[r * k + c] = acc;
//   }
//   __global__ void scale_kernel(float* x, int n) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) x[i] *= kScale[i % 16];
//   }
//   template <int T>
//   __global__ void tmpl_kernel(float* x) {
//     __shared__ float s[T];
//     s[threadIdx.x] = x[threadIdx.x];
//     __syncthreads();
//     x[threadIdx.x] = s[T - 1 - threadIdx.x];
//   }
//   template __global__ void tmpl_kernel<32>(float*);
//   template __global__ void tmpl_kernel<64>(float*);
//   __device__ __noinline__ float helper(float* p, int i) { float loc[64]; for (int j=0;j<64;++j)
//   loc[j]=p[j*i]; return loc[i&63]; }
//   __global__ void spill_kernel(float* x, int i) { volatile float big[256]; for (int
//   j=0;j<256;++j) big[j]=x[j]; x[0]=big[i&255] + helper(x, i); }
// (sm_90 builds of CUDA 13.0 print no cmem figures; the sm_80 build below does.)
const char* const kSm90 = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z12spill_kernelPfi' for 'sm_90'
ptxas info    : Function properties for _Z12spill_kernelPfi
    1280 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 1280 bytes cumulative stack size
ptxas info    : Compile time = 24.514 ms
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z11tmpl_kernelILi64EEvPf' for 'sm_90'
ptxas info    : Function properties for _Z11tmpl_kernelILi64EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem
ptxas info    : Compile time = 1.571 ms
ptxas info    : Compiling entry function '_Z11tmpl_kernelILi32EEvPf' for 'sm_90'
ptxas info    : Function properties for _Z11tmpl_kernelILi32EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 128 bytes smem
ptxas info    : Compile time = 1.059 ms
ptxas info    : Compiling entry function '_Z12scale_kernelPfi' for 'sm_90'
ptxas info    : Function properties for _Z12scale_kernelPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 1.213 ms
ptxas info    : Compiling entry function '_Z19matmul_tiled_kernelPKfS0_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z19matmul_tiled_kernelPKfS0_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compile time = 5.872 ms
)";

// The same file, -arch=sm_80: the __constant__ array shows as cmem[3] on the gmem line.
const char* const kSm80 = R"(ptxas info    : 0 bytes gmem, 64 bytes cmem[3]
ptxas info    : Compiling entry function '_Z12spill_kernelPfi' for 'sm_80'
ptxas info    : Function properties for _Z12spill_kernelPfi
    1280 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 1280 bytes cumulative stack size, 364 bytes cmem[0]
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z11tmpl_kernelILi64EEvPf' for 'sm_80'
ptxas info    : Function properties for _Z11tmpl_kernelILi64EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z11tmpl_kernelILi32EEvPf' for 'sm_80'
ptxas info    : Function properties for _Z11tmpl_kernelILi32EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 128 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z12scale_kernelPfi' for 'sm_80'
ptxas info    : Function properties for _Z12scale_kernelPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers, 364 bytes cmem[0]
ptxas info    : Compiling entry function '_Z19matmul_tiled_kernelPKfS0_Pfiii' for 'sm_80'
ptxas info    : Function properties for _Z19matmul_tiled_kernelPKfS0_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 388 bytes cmem[0]
)";

// A kernel forced to spill: -maxrregcount=16, with ptxas's warnings on the same stream.
const char* const kSpill =
    R"(ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Overriding maximum register limit 256 for '_Z12heavy_kernelPKfPf' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z12heavy_kernelPKfPf' for 'sm_90'
ptxas info    : Function properties for _Z12heavy_kernelPKfPf
    544 bytes stack frame, 588 bytes spill stores, 716 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 544 bytes cumulative stack size
ptxas info    : Compile time = 15.302 ms
)";

// The sample in the brief (CUDA 13, sm_90, another build): cmem[0] on the Used line.
const char* const kBrief = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z19matmul_tiled_kernelPKfS0_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z19matmul_tiled_kernelPKfS0_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 388 bytes cmem[0]
)";

TEST(ResourceReport, ParsesTheBriefSample) {
  Result<ResourceReport> r = ParsePtxasReport(kBrief);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->kernels.size(), 1u);
  const KernelResources& k = r->kernels[0];
  EXPECT_EQ(k.mangled, "_Z19matmul_tiled_kernelPKfS0_Pfiii");
  EXPECT_EQ(k.arch, "sm_90");
  EXPECT_EQ(k.registers, 32);
  EXPECT_EQ(k.barriers, 1);
  EXPECT_EQ(k.static_shared_bytes, 2048);
  EXPECT_EQ(k.local_bytes, 0);
  EXPECT_EQ(k.constant_bytes, 388);
  EXPECT_EQ(k.max_threads, 1024);
}

TEST(ResourceReport, ParsesEveryKernelOfARealFile) {
  Result<ResourceReport> r = ParsePtxasReport(kSm90);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->kernels.size(), 5u);  // the __noinline__ device function is not a kernel
  const KernelResources& spill = r->kernels[0];
  EXPECT_EQ(spill.mangled, "_Z12spill_kernelPfi");
  EXPECT_EQ(spill.registers, 40);
  EXPECT_EQ(spill.local_bytes, 1280);
  EXPECT_EQ(spill.barriers, 0);
  const KernelResources& t64 = r->kernels[1];
  EXPECT_EQ(t64.mangled, "_Z11tmpl_kernelILi64EEvPf");
  EXPECT_EQ(t64.static_shared_bytes, 256);
  EXPECT_EQ(t64.barriers, 1);
  EXPECT_EQ(r->kernels[2].static_shared_bytes, 128);
  const KernelResources& scale = r->kernels[3];  // no shared memory, no barrier
  EXPECT_EQ(scale.registers, 8);
  EXPECT_EQ(scale.static_shared_bytes, 0);
  EXPECT_EQ(scale.barriers, 0);
  EXPECT_EQ(scale.constant_bytes, 0);
  EXPECT_EQ(r->kernels[4].static_shared_bytes, 2048);
  EXPECT_EQ(r->module_constant_bytes, 0);
}

TEST(ResourceReport, ReadsConstantMemory) {
  Result<ResourceReport> r = ParsePtxasReport(kSm80);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->module_constant_bytes, 64);  // __constant__ float kScale[16]
  EXPECT_EQ(r->global_bytes, 0);
  ASSERT_EQ(r->kernels.size(), 5u);
  EXPECT_EQ(r->kernels[3].constant_bytes, 364);
  EXPECT_EQ(r->kernels[4].constant_bytes, 388);
  EXPECT_EQ(r->kernels[4].arch, "sm_80");
}

TEST(ResourceReport, ReadsSpills) {
  Result<ResourceReport> r = ParsePtxasReport(kSpill);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_EQ(r->kernels[0].registers, 24);
  EXPECT_EQ(r->kernels[0].local_bytes, 544);
  EXPECT_EQ(r->kernels[0].spill_store_bytes, 588);
  EXPECT_EQ(r->kernels[0].spill_load_bytes, 716);
}

TEST(ResourceReport, EmptyAndTruncatedOutput) {
  EXPECT_TRUE(ParsePtxasReport("")->kernels.empty());
  const std::string text = kBrief;
  EXPECT_EQ(ParsePtxasReport(text.substr(0, text.find("ptxas info    : Used"))).error(),
            "ptxas output: no \"Used ... registers\" line for _Z19matmul_tiled_kernelPKfS0_Pfiii "
            "(truncated output?)");
  EXPECT_EQ(ParsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                             "ptxas info    : Used 99999999999999999999 registers\n")
                .error(),
            "ptxas output, line 2: cannot read the number in \"99999999999999999999 registers\"");
}

TEST(ResourceReport, EmulatorJson) {
  Result<ResourceReport> r = ParsePtxasReport(kBrief);
  EXPECT_EQ(ToEmulatorJson(*r).dump(),
            R"({"kernels":{"_Z19matmul_tiled_kernelPKfS0_Pfiii":{"barriers":1,"local_bytes":0,)"
            R"("max_threads":1024,"registers":32,"static_shared_bytes":2048}}})");
}

TEST(ResourceReport, MaxThreadsFollowsRegisters) {
  EXPECT_EQ(MaxThreadsPerBlock(32), 1024);
  EXPECT_EQ(MaxThreadsPerBlock(64), 1024);
  EXPECT_EQ(MaxThreadsPerBlock(72), 896);
  EXPECT_EQ(MaxThreadsPerBlock(128), 512);
  EXPECT_EQ(MaxThreadsPerBlock(255), 256);
}

TEST(ResourceReport, Demangle) {
  EXPECT_EQ(DemangleSymbol("_Z19matmul_tiled_kernelPKfS0_Pfiii"),
            "matmul_tiled_kernel(float const*, float const*, float*, int, int, int)");
  EXPECT_EQ(DemangleSymbol("_Z11tmpl_kernelILi64EEvPf"), "void tmpl_kernel<64>(float*)");
  EXPECT_EQ(DemangleSymbol("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(FunctionName("_Z19matmul_tiled_kernelPKfS0_Pfiii"), "matmul_tiled_kernel");
  EXPECT_EQ(FunctionName("_Z11tmpl_kernelILi64EEvPf"), "tmpl_kernel");
  EXPECT_EQ(FunctionName("_ZN2ns6kernelEv"), "kernel");
  EXPECT_EQ(FunctionName("_ZN12_GLOBAL__N_14kernEi"), "kern");
  EXPECT_EQ(FunctionName("plain_c_kernel"), "plain_c_kernel");
}

TEST(ResourceReport, FindByNameOrMangled) {
  Result<ResourceReport> r = ParsePtxasReport(kSm90);
  EXPECT_EQ(r->Find("tmpl_kernel").size(), 2u);
  EXPECT_EQ(r->Find("_Z12scale_kernelPfi").size(), 1u);
  EXPECT_TRUE(r->Find("matmul_rows_kernel").empty());
}

TEST(ResourceReport, TechniqueHolds) {
  Technique t;
  t.min_static_shared_bytes = 2048;
  t.uses_barrier = true;
  EXPECT_EQ(CheckTechnique(*ParsePtxasReport(kSm90), "matmul_tiled_kernel", t), "");
}

TEST(ResourceReport, TechniqueFailures) {
  const ResourceReport r = *ParsePtxasReport(kSm90);
  Technique shared;
  shared.min_static_shared_bytes = 2048;
  EXPECT_EQ(CheckTechnique(r, "scale_kernel", shared),
            "scale_kernel declares 0 bytes of __shared__ memory; this exercise needs at least 2048 "
            "(the tiles of A and B, as __shared__ arrays of fixed size)");
  Technique barrier;
  barrier.uses_barrier = true;
  EXPECT_EQ(CheckTechnique(r, "spill_kernel", barrier),
            "spill_kernel never waits at __syncthreads(): threads would read a tile before the "
            "others have finished loading it");
  Technique small;
  small.max_static_shared_bytes = 128;
  EXPECT_EQ(CheckTechnique(r, "tmpl_kernel", small),
            "void tmpl_kernel<64>(float*) declares 256 bytes of __shared__ memory; this exercise "
            "allows at most 128");
  Technique dynamic_only;
  dynamic_only.max_static_shared_bytes = 0;
  EXPECT_EQ(
      CheckTechnique(r, "matmul_tiled_kernel", dynamic_only),
      "matmul_tiled_kernel declares 2048 bytes of fixed-size __shared__ arrays; this exercise "
      "sizes its shared memory at launch instead: one `extern __shared__ float s[];` buffer, "
      "split into the tiles, and no __shared__ array of fixed size");
  Technique regs;
  regs.max_registers = 32;
  regs.max_local_bytes = 0;
  EXPECT_EQ(CheckTechnique(r, "spill_kernel", regs),
            "spill_kernel uses 40 registers per thread; this exercise allows at most 32");
  EXPECT_EQ(CheckTechnique(r, "matmul_tiled_any_kernel", regs),
            "no kernel named matmul_tiled_any_kernel was compiled from your file: its name is "
            "fixed by the interface header (was it renamed, or is it never used?)");
}

// The lab's hint (lab.yaml technique.hints) follows the check it is given for, and only that one.
TEST(ResourceReport, TheLabsHintFollowsItsCheck) {
  const ResourceReport r = *ParsePtxasReport(kSm90);
  Technique t;
  t.uses_barrier = true;
  t.max_registers = 32;
  t.hints = {{"uses_barrier", "Wait after loading each tile."}};
  EXPECT_EQ(CheckTechnique(r, "scale_kernel", t),
            "scale_kernel never waits at __syncthreads(): threads would read a tile before the "
            "others have finished loading it. Wait after loading each tile.");
  t.uses_barrier.reset();
  EXPECT_EQ(CheckTechnique(r, "spill_kernel", t),
            "spill_kernel uses 40 registers per thread; this exercise allows at most 32");
}

// lab 04's drawn block sides read the student's kernel off the build's report.
TEST(ResourceReport, TheStudentsKernelIsReadOffTheReport) {
  ResourceReport report;
  KernelResources k;
  k.mangled = "_Z21matmul_dynamic_kernelPKfS0_Pfiii";
  k.registers = 40;
  k.static_shared_bytes = 16;
  k.max_threads = 256;
  report.kernels.push_back(k);
  const StudentKernel found = StudentKernelIn(&report, "", false, "matmul_dynamic_kernel");
  EXPECT_TRUE(found.known);
  EXPECT_EQ(found.registers, 40);
  EXPECT_EQ(found.static_shared, 16);
  EXPECT_EQ(found.max_threads, 256);
  const StudentKernel absent = StudentKernelIn(&report, "", true, "other_kernel");
  EXPECT_FALSE(absent.known);
  EXPECT_EQ(absent.unknown_why, "the build reports no kernel named other_kernel");
  EXPECT_FALSE(StudentKernelIn(&report, "", false, "").known);  // none named, none needed
}

// Without a report the CPU backend's kernels have the emulator's model; a GPU's are unknown.
TEST(ResourceReport, WithoutAReportOnlyTheEmulatorsModelIsKnown) {
  const StudentKernel modelled = StudentKernelIn(nullptr, "no nvcc here", true, "k");
  EXPECT_TRUE(modelled.known);
  EXPECT_EQ(modelled.registers, 32);
  EXPECT_EQ(modelled.static_shared, 0);
  EXPECT_EQ(modelled.max_threads, 1024);
  const StudentKernel unknown =
      StudentKernelIn(nullptr, "the fatbinary could not be read", false, "k");
  EXPECT_FALSE(unknown.known);
  EXPECT_EQ(unknown.unknown_why, "the fatbinary could not be read");
}

}  // namespace
}  // namespace labkit
