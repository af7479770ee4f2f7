// InitialDeviceState on the CPU backend: what a plan changed is put back as the program started.
#include "initial_device_state.h"

#include <gtest/gtest.h>

#include "replay_recorder.h"

namespace labkit::replay {
namespace {

__constant__ int c_block_side = 5;
__device__ float d_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__global__ void dynamic_tiles_kernel(float* out) {
  extern __shared__ float tiles[];
  tiles[threadIdx.x] = 1.0f;
  out[threadIdx.x] = tiles[threadIdx.x];
}

StudentImage ImageOf(const void* first, int64_t first_size, const void* second,
                     int64_t second_size) {
  StudentImage image;
  image.variables = {{ImageOffset(first), first_size}, {ImageOffset(second), second_size}};
  return image;
}

TEST(InitialDeviceStateTest, PutsVariablesBackAsTheProgramStarted) {
  const InitialDeviceState initial =
      InitialDeviceState(ImageOf(&c_block_side, sizeof c_block_side, &d_table, sizeof d_table));
  const int other_side = 16;
  const float zeros[4] = {};
  ASSERT_EQ(cudaMemcpyToSymbol(c_block_side, &other_side, sizeof other_side), cudaSuccess);
  ASSERT_EQ(cudaMemcpyToSymbol(d_table, zeros, sizeof zeros), cudaSuccess);

  initial.Restore();

  int side = 0;
  float table[4] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(&side, c_block_side, sizeof side), cudaSuccess);
  ASSERT_EQ(cudaMemcpyFromSymbol(table, d_table, sizeof table), cudaSuccess);
  EXPECT_EQ(side, 5);
  EXPECT_EQ(table[0], 1.0f);
  EXPECT_EQ(table[3], 4.0f);
}

TEST(InitialDeviceStateTest, PutsChangedKernelAttributesBack) {
  const void* kernel = reinterpret_cast<const void*>(dynamic_tiles_kernel);
  cudaFuncAttributes before{};
  ASSERT_EQ(cudaFuncGetAttributes(&before, kernel), cudaSuccess);
  const InitialDeviceState initial{StudentImage{}};

  KeepAttributeBeforeChange(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize);
  ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536),
            cudaSuccess);
  // A second change keeps the value the program started with, not the one in between.
  KeepAttributeBeforeChange(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize);
  ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 80000),
            cudaSuccess);

  initial.Restore();

  cudaFuncAttributes after{};
  ASSERT_EQ(cudaFuncGetAttributes(&after, kernel), cudaSuccess);
  EXPECT_EQ(after.maxDynamicSharedSizeBytes, before.maxDynamicSharedSizeBytes);
  EXPECT_NE(after.maxDynamicSharedSizeBytes, 80000);
}

}  // namespace
}  // namespace labkit::replay
