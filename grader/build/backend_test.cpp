#include "backend.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

using Ids = std::vector<std::string>;

TEST(GpuIdsFromNvidiaSmiList, OneIdPerGpu) {
  const std::string text =
      "GPU 0: NVIDIA H200 (UUID: GPU-11111111-aaaa)\n"
      "GPU 1: NVIDIA H200 (UUID: GPU-22222222-bbbb)\n";
  EXPECT_EQ(GpuIdsFromNvidiaSmiList(text), (Ids{"GPU-11111111-aaaa", "GPU-22222222-bbbb"}));
}

TEST(GpuIdsFromNvidiaSmiList, AGpuSplitIntoMigInstancesStandsForTheInstances) {
  const std::string text =
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa)\n"
      "  MIG 3g.40gb     Device  0: (UUID: MIG-1111)\n"
      "  MIG 3g.40gb     Device  1: (UUID: MIG-2222)\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbbb)\n";
  EXPECT_EQ(GpuIdsFromNvidiaSmiList(text), (Ids{"MIG-1111", "MIG-2222", "GPU-bbbb"}));
}

TEST(GpuIdsFromNvidiaSmiList, TextWithoutGpusGivesNone) {
  EXPECT_TRUE(GpuIdsFromNvidiaSmiList("").empty());
  EXPECT_TRUE(GpuIdsFromNvidiaSmiList("NVIDIA-SMI has failed because it couldn't communicate\n")
                  .empty());
}

TEST(SplitVisibleDevices, SplitsOnCommasAndDropsBlanksAndRepeats) {
  EXPECT_EQ(SplitVisibleDevices("0,1"), (Ids{"0", "1"}));
  EXPECT_EQ(SplitVisibleDevices(" GPU-a , ,GPU-b"), (Ids{"GPU-a", "GPU-b"}));
  EXPECT_EQ(SplitVisibleDevices("1,0,1"), (Ids{"1", "0"}));
  EXPECT_TRUE(SplitVisibleDevices("").empty());
}

}  // namespace
}  // namespace labkit
