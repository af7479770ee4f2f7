// The run settings a hosting program sets after it started (labkit_emu/run_settings.h), in place
// of the environment.
#include "labkit_emu/run_settings.h"

#include <vector>

#include "test_util.h"

namespace emu_test {

// Restores the settings the other tests expect.
class RunSettingsTest : public ::testing::Test {
 protected:
  ~RunSettingsTest() override { *emu::detail::ConfigWrite() = saved_; }
  emu::detail::Config saved_ = emu::detail::config();
};

__global__ void note_thread_order(int* next, int* order) {
  order[threadIdx.x] = atomicAdd(next, 1);
}

TEST_F(RunSettingsTest, TheOrderSetRunsTheNextLaunches) {
  ASSERT_TRUE(emu::set_thread_order("reverse"));
  const int threads = 8;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, (threads + 1) * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, (threads + 1) * sizeof(int)), cudaSuccess);
  emu::launch(note_thread_order, dim3(1), dim3(threads), 0, 0, d, d + 1);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> order = to_host(d + 1, threads);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(order[t], threads - 1 - t) << "thread " << t;
  cudaFree(d);
}

TEST_F(RunSettingsTest, AMalformedOrderChangesNothing) {
  ASSERT_TRUE(emu::set_thread_order("random:7"));
  EXPECT_FALSE(emu::set_thread_order("backwards"));
  EXPECT_FALSE(emu::set_thread_order("random:"));
  EXPECT_FALSE(emu::set_thread_order(nullptr));
  EXPECT_EQ(emu::detail::config().order, emu::detail::Order::random);
  EXPECT_EQ(emu::detail::config().seed, 7u);
}

TEST_F(RunSettingsTest, ThreadsAndCountingAsAsked) {
  emu::set_worker_threads(0);
  EXPECT_EQ(emu::detail::config().threads, 1u);
  emu::set_worker_threads(3);
  EXPECT_EQ(emu::detail::config().threads, 3u);
  emu::set_count_accesses(true);
  EXPECT_TRUE(emu::detail::config().count_accesses);
  emu::set_count_accesses(false);
  EXPECT_FALSE(emu::detail::config().count_accesses);
}

}  // namespace emu_test
