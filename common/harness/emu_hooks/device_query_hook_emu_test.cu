// The device a query is shown, on the CPU backend: this test is linked with `--wrap` on emu's
// device-query functions and the occupancy API's (as labgrade links a submission), so its calls
// reach device_query_hook_emu.cpp and occupancy_hook_emu.cpp as a student's would. While a
// PresentedBlockLimit is open every way of reading a block's size tells the presented limit;
// outside it, the modelled device's 1024.
#include <gtest/gtest.h>

#include <utility>

#include "presented_device.cuh"

namespace labkit {
namespace {

__global__ void one_block_kernel(float* out) { out[threadIdx.x] = 1.0f; }

struct BlockLimits {
  int properties = 0, properties_x = 0, properties_y = 0, properties_z = 0;
  int attribute = 0, attribute_x = 0, attribute_y = 0, attribute_z = 0;
  int kernel = 0;
  int largest_potential_block = 0;
};

// Every way the student's function can read how many threads a block may hold.
BlockLimits Read() {
  BlockLimits l;
  cudaDeviceProp prop{};
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  l.properties = prop.maxThreadsPerBlock;
  l.properties_x = prop.maxThreadsDim[0];
  l.properties_y = prop.maxThreadsDim[1];
  l.properties_z = prop.maxThreadsDim[2];
  EXPECT_EQ(cudaDeviceGetAttribute(&l.attribute, cudaDevAttrMaxThreadsPerBlock, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&l.attribute_x, cudaDevAttrMaxBlockDimX, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&l.attribute_y, cudaDevAttrMaxBlockDimY, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&l.attribute_z, cudaDevAttrMaxBlockDimZ, 0), cudaSuccess);
  cudaFuncAttributes attributes{};
  EXPECT_EQ(cudaFuncGetAttributes(&attributes, one_block_kernel), cudaSuccess);
  l.kernel = attributes.maxThreadsPerBlock;
  int min_grid = 0;
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &l.largest_potential_block,
                                               one_block_kernel, 0, 0),
            cudaSuccess);
  return l;
}

TEST(PresentedDevice, EveryReadTellsThePresentedLimitWhileItIsOpen) {
  const BlockLimits device = Read();
  EXPECT_EQ(device.properties, 1024);
  EXPECT_EQ(device.attribute_x, 1024);
  EXPECT_EQ(device.kernel, 1024);
  {
    PresentedBlockLimit shown(512);
    const BlockLimits l = Read();
    EXPECT_EQ(l.properties, 512);
    EXPECT_EQ(l.properties_x, 512);
    EXPECT_EQ(l.properties_y, 512);
    EXPECT_EQ(l.properties_z, 64);  // shorter than the limit already
    EXPECT_EQ(l.attribute, 512);
    EXPECT_EQ(l.attribute_x, 512);
    EXPECT_EQ(l.attribute_y, 512);
    EXPECT_EQ(l.attribute_z, 64);
    EXPECT_EQ(l.kernel, 512);
    EXPECT_LE(l.largest_potential_block, 512);
    EXPECT_GT(l.largest_potential_block, 0);
    // Every other attribute as the device has it.
    int warp = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0), cudaSuccess);
    EXPECT_EQ(warp, 32);
  }
  const BlockLimits after = Read();
  EXPECT_EQ(after.properties, device.properties);
  EXPECT_EQ(after.attribute, device.attribute);
  EXPECT_EQ(after.kernel, device.kernel);
  EXPECT_EQ(after.largest_potential_block, device.largest_potential_block);
}

// Lab 04's drawn occupancy cases: while a PresentedMultiprocessor is open, the properties and the
// attributes both tell its limits (a block's registers at most the multiprocessor's); every other
// limit, and everything after it closes, as the modelled device has it.
TEST(PresentedDevice, AMultiprocessorIsShownByPropertiesAndAttributesAlike) {
  cudaDeviceProp device{};
  ASSERT_EQ(cudaGetDeviceProperties(&device, 0), cudaSuccess);
  ASSERT_NE(device.maxThreadsPerMultiProcessor, 1536);
  {
    PresentedMultiprocessor shown({/*threads=*/1536, /*blocks=*/24, /*registers=*/32768,
                                   /*shared=*/106496, /*reserved=*/2048, /*warp_size=*/32,
                                   /*block_optin=*/104448});
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    EXPECT_EQ(prop.maxThreadsPerMultiProcessor, 1536);
    EXPECT_EQ(prop.maxBlocksPerMultiProcessor, 24);
    EXPECT_EQ(prop.regsPerMultiprocessor, 32768);
    EXPECT_EQ(prop.regsPerBlock, 32768);
    EXPECT_EQ(prop.sharedMemPerMultiprocessor, 106496u);
    EXPECT_EQ(prop.sharedMemPerBlockOptin, 104448u);
    EXPECT_EQ(prop.maxThreadsPerBlock, device.maxThreadsPerBlock);
    EXPECT_EQ(prop.reservedSharedMemPerBlock, 2048u);
    const std::pair<cudaDeviceAttr, int> attributes[] = {
        {cudaDevAttrMaxThreadsPerMultiProcessor, 1536},
        {cudaDevAttrMaxBlocksPerMultiprocessor, 24},
        {cudaDevAttrMaxRegistersPerMultiprocessor, 32768},
        {cudaDevAttrMaxRegistersPerBlock, 32768},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, 106496},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, 104448},
        {cudaDevAttrReservedSharedMemoryPerBlock, 2048},
        {cudaDevAttrWarpSize, 32}};
    for (const auto& [attr, expected] : attributes) {
      int value = 0;
      ASSERT_EQ(cudaDeviceGetAttribute(&value, attr, 0), cudaSuccess);
      EXPECT_EQ(value, expected) << "attribute " << static_cast<int>(attr);
    }
  }
  cudaDeviceProp after{};
  ASSERT_EQ(cudaGetDeviceProperties(&after, 0), cudaSuccess);
  EXPECT_EQ(after.maxThreadsPerMultiProcessor, device.maxThreadsPerMultiProcessor);
  EXPECT_EQ(after.regsPerMultiprocessor, device.regsPerMultiprocessor);
  EXPECT_EQ(after.sharedMemPerMultiprocessor, device.sharedMemPerMultiprocessor);
  int blocks = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0), cudaSuccess);
  EXPECT_EQ(blocks, device.maxBlocksPerMultiProcessor);
}

// Lab 04's drawn block_side cases: on a presented multiprocessor the occupancy API answers with
// the handout's formula, and the suggested block size is CUDA's search over those answers. The
// kernel has the emulator's 32 registers (no report lists it): 1024 a warp. With 16 Ki registers,
// 16 warps fit: 256 threads (8 warps) hold 2 blocks, where the modelled H100 holds 8; no block of
// more than 512 threads fits, so 512 is suggested (the H100's: 1024).
TEST(PresentedDevice, OnAPresentedMultiprocessorTheOccupancyApiAnswersForIt) {
  const auto eight_bytes_a_thread = [](int threads) { return static_cast<size_t>(8 * threads); };
  int blocks = 0, min_grid = 0, suggested = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 256, 0),
            cudaSuccess);
  EXPECT_EQ(blocks, 8);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &suggested, one_block_kernel,
                                                           eight_bytes_a_thread, 1024),
            cudaSuccess);
  EXPECT_EQ(suggested, 1024);
  int processors = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  {
    PresentedMultiprocessor shown({/*threads=*/1536, /*blocks=*/16, /*registers=*/16384,
                                   /*shared=*/106496, /*reserved=*/1024, /*warp_size=*/32,
                                   /*block_optin=*/105472});
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 256, 0),
              cudaSuccess);
    EXPECT_EQ(blocks, 2);
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 1024, 0),
              cudaSuccess);
    EXPECT_EQ(blocks, 0);
    ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
                  &min_grid, &suggested, one_block_kernel, eight_bytes_a_thread, 1024),
              cudaSuccess);
    EXPECT_EQ(suggested, 512);
    EXPECT_EQ(min_grid, processors);  // one block of 512 per SM
    ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
                  &min_grid, &suggested, one_block_kernel, eight_bytes_a_thread, 200),
              cudaSuccess);
    EXPECT_EQ(suggested, 128);  // 200 holds 2 blocks (400), 160 holds 3 (480), 128 holds 4 (512)
  }
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 256, 0),
            cudaSuccess);
  EXPECT_EQ(blocks, 8);
}

// The device is never shown as larger than it is.
TEST(PresentedDevice, ALimitAboveTheDevicesChangesNothing) {
  EXPECT_EQ(PresentedThreadLimit(1024), 1024);
  PresentedBlockLimit shown(4096);
  EXPECT_EQ(PresentedThreadLimit(1024), 1024);
  EXPECT_EQ(PresentedThreadLimit(64), 64);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.maxThreadsPerBlock, 1024);
}

// A block above the presented limit is one the launch wraps have the runtime refuse; the device's
// own limit holds again once the presentation closes.
TEST(PresentedDevice, BlocksAboveThePresentedLimitAreRefused) {
  EXPECT_FALSE(PresentedDeviceRefusesBlock(32, 32, 1));
  {
    PresentedBlockLimit shown(768);
    EXPECT_FALSE(PresentedDeviceRefusesBlock(27, 27, 1));
    EXPECT_FALSE(PresentedDeviceRefusesBlock(768, 1, 1));
    EXPECT_TRUE(PresentedDeviceRefusesBlock(28, 28, 1));
    EXPECT_TRUE(PresentedDeviceRefusesBlock(16, 16, 4));
    EXPECT_TRUE(PresentedDeviceRefusesBlock(1u << 16, 1u << 16, 1));  // no overflow
  }
  EXPECT_FALSE(PresentedDeviceRefusesBlock(32, 32, 1));
}

// Lab 01 refuses a drawn case in which nothing asked the presented device: every way of asking
// counts (each way of Read(), and a launch it refuses), nothing else does, and each presentation
// starts unasked.
TEST(PresentedDevice, SaysWhetherItWasAsked) {
  auto asked_after = [](auto ask) {
    PresentedBlockLimit shown(512);
    ask();
    return shown.asked();
  };
  EXPECT_FALSE(asked_after([] {}));
  EXPECT_FALSE(asked_after([] {
    int warp = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0), cudaSuccess);
    EXPECT_FALSE(PresentedDeviceRefusesBlock(16, 16, 1));  // a launch it takes
  }));
  EXPECT_TRUE(asked_after([] {
    cudaDeviceProp prop{};
    EXPECT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  }));
  EXPECT_TRUE(asked_after([] {
    int threads = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxBlockDimY, 0), cudaSuccess);
  }));
  EXPECT_TRUE(asked_after([] {
    cudaFuncAttributes attributes{};
    EXPECT_EQ(cudaFuncGetAttributes(&attributes, one_block_kernel), cudaSuccess);
  }));
  EXPECT_TRUE(asked_after([] {
    int min_grid = 0, block = 0;
    EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, one_block_kernel, 0, 0),
              cudaSuccess);
  }));
  EXPECT_TRUE(asked_after([] { EXPECT_TRUE(PresentedDeviceRefusesBlock(32, 32, 1)); }));
  // Answers that tell nothing of the presented limit: a side no presented device changes, a block
  // no device takes.
  EXPECT_FALSE(asked_after([] {
    int side = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&side, cudaDevAttrMaxBlockDimZ, 0), cudaSuccess);
    EXPECT_EQ(side, 64);
  }));
  EXPECT_FALSE(asked_after([] { EXPECT_TRUE(PresentedDeviceRefusesBlock(64, 64, 1)); }));
  EXPECT_FALSE(asked_after([] {})) << "a new presentation starts unasked";
}

// A block above the presented limit has no resident blocks (a false failure of 2026-11-28: a width
// found by asking cudaOccupancyMaxActiveBlocksPerMultiprocessor block size by block size).
TEST(PresentedDevice, NoResidentBlocksAboveThePresentedLimit) {
  int blocks = -1;
  {
    PresentedBlockLimit shown(512);
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 512, 0),
              cudaSuccess);
    EXPECT_GT(blocks, 0);
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 529, 0),
              cudaSuccess);
    EXPECT_EQ(blocks, 0);
    EXPECT_TRUE(shown.asked());
  }
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, one_block_kernel, 529, 0),
            cudaSuccess);
  EXPECT_GT(blocks, 0);
}

// A failed call leaves the answer alone (nothing to present) and keeps its error.
TEST(PresentedDevice, AFailedReadKeepsItsError) {
  PresentedBlockLimit shown(256);
  int value = -1;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, 7),
            cudaErrorInvalidDevice);
  EXPECT_EQ(value, -1);
  cudaGetLastError();
}

}  // namespace
}  // namespace labkit
