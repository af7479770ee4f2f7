// The modelled device, kernel attributes from the resource report, occupancy (checked against
// values worked out by hand from the H100's limits), events and error strings.
#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <thread>

#include "config.h"
#include "test_util.h"

namespace emu_test {

// Kernels that only exist to be described by the resource report main.cpp writes.
__global__ void regs32() {}
__global__ void regs64() {}
__global__ void regs128() {}
__global__ void regs255() {}
__global__ void smem48k() {}
__global__ void not_in_report() {}
__global__ void declared_37() {}

namespace {
std::string mangled(const void* f) {
  Dl_info info;
  EXPECT_NE(dladdr(f, &info), 0);
  return info.dli_sname ? info.dli_sname : "";
}

std::string entry(const void* f, int regs, int smem, int local = 0) {
  return "\"" + mangled(f) + "\": {\"registers\": " + std::to_string(regs) +
         ", \"static_shared_bytes\": " + std::to_string(smem) +
         ", \"local_bytes\": " + std::to_string(local) + ", \"max_threads\": 1024}";
}
}  // namespace

void write_resource_report() {
  const std::string path = "/tmp/emu_runtime_tests." + std::to_string(getpid()) + ".kernels.json";
  std::ofstream out(path);
  out << "{\"kernels\": {" << entry(reinterpret_cast<const void*>(regs32), 32, 0) << ", "
      << entry(reinterpret_cast<const void*>(regs64), 64, 0) << ", "
      << entry(reinterpret_cast<const void*>(regs128), 128, 0, 16) << ", "
      << entry(reinterpret_cast<const void*>(regs255), 255, 0) << ", "
      << entry(reinterpret_cast<const void*>(smem48k), 32, 49152) << "}}\n";
  setenv("LABKIT_EMU_KERNELS", path.c_str(), 0);
  // The settings were read from the environment as the program started: named there too.
  if (emu::detail::config().kernels_path.empty()) emu::detail::ConfigWrite()->kernels_path = path;
}

TEST(Device, ModelsAnH100ByDefault) {
  int count = 0, device = -1;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  (void)cudaGetLastError();
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_STREQ(p.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.major, 9);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.multiProcessorCount, 132);
  EXPECT_EQ(p.sharedMemPerBlock, 49152u);
  EXPECT_EQ(p.sharedMemPerBlockOptin, 232448u);
  EXPECT_EQ(p.sharedMemPerMultiprocessor, 233472u);
  EXPECT_EQ(p.reservedSharedMemPerBlock, 1024u);
  EXPECT_EQ(p.maxThreadsPerMultiProcessor, 2048);
  EXPECT_EQ(p.maxBlocksPerMultiProcessor, 32);
  EXPECT_EQ(p.regsPerMultiprocessor, 65536);
  EXPECT_EQ(p.l2CacheSize, 50 * 1024 * 1024);
  EXPECT_EQ(p.maxThreadsDim[2], 64);
  int value = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(value, 132);
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, 0), cudaSuccess);
  EXPECT_EQ(value, 1980000);
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
            cudaSuccess);
  EXPECT_EQ(value, 232448);
}

TEST(Kernels, AttributesComeFromTheResourceReport) {
  cudaFuncAttributes a;
  ASSERT_EQ(cudaFuncGetAttributes(&a, regs128), cudaSuccess);
  EXPECT_EQ(a.numRegs, 128);
  EXPECT_EQ(a.localSizeBytes, 16u);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  ASSERT_EQ(cudaFuncGetAttributes(&a, smem48k), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 49152u);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 0);
  ASSERT_EQ(cudaFuncGetAttributes(&a, not_in_report), cudaSuccess);
  EXPECT_EQ(a.numRegs, 32);
  EXPECT_EQ(a.sharedSizeBytes, 0u);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 49152);
}

// Blocks per SM on an H100 (65536 registers, 2048 threads, 32 blocks and 228 KiB of shared memory
// per SM; 1 KiB reserved per block; registers allocated per warp in units of 256):
struct OccupancyCase {
  void (*kernel)();
  int block_size;
  size_t dynamic_smem;
  int expected;
  const char* why;
};

TEST(Occupancy, MatchesTheH100ByHand) {
  const OccupancyCase cases[] = {
      {regs32, 256, 0, 8, "threads: 2048 / 256; registers: 65536 / (8 warps * 32 * 32) = 8"},
      {regs64, 256, 0, 4, "registers: 65536 / (8 warps * 32 * 64) = 4"},
      {regs128, 256, 0, 2, "registers: 65536 / (8 warps * 32 * 128) = 2"},
      {regs32, 1024, 0, 2, "threads: 2048 / 1024"},
      {regs32, 32, 0, 32, "the 32-blocks-per-SM limit (64 by threads)"},
      {regs255, 1024, 0, 0, "255 -> 256 registers * 1024 threads = 262144 > 65536"},
      {regs255, 256, 0, 1, "8 warps * 8192 = 65536: exactly one block"},
      {smem48k, 128, 0, 4, "shared: 233472 / (49152 + 1024) = 4.65"},
      {regs32, 256, 102400, 0, "100 KiB of dynamic shared memory without the opt-in attribute"},
  };
  for (const OccupancyCase& c : cases) {
    int blocks = -1;
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.kernel, c.block_size,
                                                            c.dynamic_smem),
              cudaSuccess);
    EXPECT_EQ(blocks, c.expected) << c.why;
  }
  ASSERT_EQ(cudaFuncSetAttribute(regs32, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448),
            cudaSuccess);
  int blocks = -1;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, regs32, 256, 102400),
            cudaSuccess);
  EXPECT_EQ(blocks, 2) << "233472 / (102400 + 1024) = 2.26";
  reset_device();  // forget the attribute
}

// Registers declared by kit code (lab 04's pinned kernels): 37 registers are allocated as 40 per
// thread (1280 per warp); a sub-partition's 16384 hold 12 such warps, so 48 per SM: 24 blocks of
// 2 warps. Without the rounding 13 warps per sub-partition fit (26 blocks); counted over the whole
// SM, 51 warps (25 blocks).
TEST(Occupancy, DeclaredRegistersCount) {
  emu::declare_registers(reinterpret_cast<const void*>(declared_37), 37);
  cudaFuncAttributes a;
  ASSERT_EQ(cudaFuncGetAttributes(&a, declared_37), cudaSuccess);
  EXPECT_EQ(a.numRegs, 37);
  int blocks = -1;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, declared_37, 64, 0),
            cudaSuccess);
  EXPECT_EQ(blocks, 24);
}

TEST(Occupancy, PotentialBlockSize) {
  int min_grid = 0, block = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, regs32), cudaSuccess);
  EXPECT_EQ(block, 1024) << "2 blocks of 1024 fill the SM; the largest such block wins";
  EXPECT_EQ(min_grid, 2 * 132);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, regs128), cudaSuccess);
  EXPECT_EQ(block, 512) << "128 registers: at most 65536 / 128 = 512 threads per SM";
  EXPECT_EQ(min_grid, 132);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, regs32, 0, 256), cudaSuccess);
  EXPECT_EQ(block, 256) << "the block size limit";
  EXPECT_EQ(min_grid, 8 * 132);

  // 256 bytes of dynamic shared memory per thread: a block of 896 threads (230400 bytes with the
  // reserved 1 KiB) is the best, as good as 2 x 448 or 4 x 224, and found first.
  ASSERT_EQ(cudaFuncSetAttribute(regs32, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448),
            cudaSuccess);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
                &min_grid, &block, regs32, [](int n) { return static_cast<size_t>(n) * 256; }),
            cudaSuccess);
  EXPECT_EQ(block, 896);
  EXPECT_EQ(min_grid, 132);
  reset_device();
}

// A functor whose operator() is not const (a `mutable` lambda that counts its calls) is valid CUDA:
// the runtime's template calls its own copy (a false failure of 2026-11-28: a compile error here).
TEST(Occupancy, AFunctorThatIsNotConstIsCalled) {
  int min_grid = 0, block = 0, calls = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, regs32,
                                                           [&calls, last = 0](int n) mutable {
                                                             ++calls;
                                                             last = n;
                                                             return static_cast<size_t>(last) * 8;
                                                           }),
            cudaSuccess);
  EXPECT_GT(calls, 0);
  EXPECT_GT(block, 0);
  reset_device();
}

// The flags forms give the plain forms' answers, and refuse a flag the runtime does not have.
TEST(Occupancy, FlagsFormsAnswerAsThePlainOnes) {
  int plain = 0, flagged = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plain, regs128, 256, 4096), cudaSuccess);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&flagged, regs128, 256, 4096,
                                                                   cudaOccupancyDefault),
            cudaSuccess);
  EXPECT_EQ(flagged, plain);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &flagged, regs128, 256, 4096, cudaOccupancyDisableCachingOverride),
            cudaSuccess);
  EXPECT_EQ(flagged, plain);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&flagged, regs128, 256, 0, 4u),
            cudaErrorInvalidValue);
  int min_grid = 0, block = 0, flagged_grid = 0, flagged_block = 0;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, regs32, 0, 256), cudaSuccess);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeWithFlags(&flagged_grid, &flagged_block, regs32, 0,
                                                        256, cudaOccupancyDefault),
            cudaSuccess);
  EXPECT_EQ(flagged_block, block);
  EXPECT_EQ(flagged_grid, min_grid);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
                &flagged_grid, &flagged_block, regs32, [](int) { return size_t{0}; }, 256,
                cudaOccupancyDefault),
            cudaSuccess);
  EXPECT_EQ(flagged_block, block);
}

TEST(Kernels, LaunchBeyondTheRegisterFileIsOutOfResources) {
  emu::launch(regs255, 1, 1024, 0, 0);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchOutOfResources);
  emu::launch(regs255, 1, 256, 0, 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Events, MeasureHostTime) {
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaEventRecord(start), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(cudaEventRecord(stop, 0), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 2000.0f);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST(Errors, NamesAndStrings) {
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorLaunchFailure), "unspecified launch failure");
  EXPECT_STREQ(cudaGetErrorName(cudaSuccess), "cudaSuccess");
  EXPECT_EQ(static_cast<int>(cudaErrorIllegalAddress), 700);
}
}  // namespace emu_test
