// The harness's device-memory accounting (device_memory_budget.h), which the GPU wrappers
// consult; plain C++, so it is tested on any machine.
#include "device_memory_budget.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace labkit {
namespace {

int a, b, c;  // addresses to stand for device pointers

TEST(DeviceMemoryBudget, RefusesWhatWouldGoOverTheLimitAndForgetsWhatIsFreed) {
  DeviceMemoryBudget budget(100);
  ASSERT_TRUE(budget.Admit(60));
  budget.Allocated(&a, 60);
  EXPECT_FALSE(budget.Admit(41));  // 60 + 41 > 100
  EXPECT_EQ(budget.refusals(), 1);
  ASSERT_TRUE(budget.Admit(40));  // exactly up to the limit
  budget.Allocated(&b, 40);
  EXPECT_EQ(budget.in_use(), 100u);
  budget.Freed(&a);
  EXPECT_EQ(budget.in_use(), 40u);
  EXPECT_TRUE(budget.Admit(60));
  budget.Freed(&c);  // never counted: ignored
  budget.Freed(&a);  // freed twice: ignored
  EXPECT_EQ(budget.in_use(), 40u);
}

TEST(DeviceMemoryBudget, AnAllocationLargerThanTheLimitIsRefusedWithoutOverflow) {
  DeviceMemoryBudget budget(100);
  budget.Allocated(&a, 50);
  EXPECT_FALSE(budget.Admit(~std::size_t(0)));  // 50 + SIZE_MAX must not wrap round to 49
  EXPECT_FALSE(budget.Admit(101));
}

TEST(DeviceMemoryBudget, AReusedAddressIsCountedOnce) {
  DeviceMemoryBudget budget(100);
  budget.Allocated(&a, 30);
  budget.Allocated(&a, 50);  // the runtime handed the address out again
  EXPECT_EQ(budget.in_use(), 50u);
}

TEST(DeviceMemoryBudget, ARestartHandsBackWhatIsLiveAndStartsTheNextRequestAfresh) {
  DeviceMemoryBudget budget(100);
  budget.Allocated(&a, 60);
  budget.Allocated(&b, 30);
  ASSERT_FALSE(budget.Admit(20));
  EXPECT_EQ(budget.SizeOf(&b), 30u);
  EXPECT_EQ(budget.SizeOf(&c), 0u);
  const auto live = budget.Restart(500);
  EXPECT_EQ(live.size(), 2u);
  EXPECT_EQ(live.at(&a), 60u);
  EXPECT_EQ(budget.in_use(), 0u);
  EXPECT_EQ(budget.limit(), 500u);
  EXPECT_EQ(budget.refusals(), 0);
  EXPECT_FALSE(budget.first_refusal().has_value());
  EXPECT_EQ(budget.SizeOf(&a), 0u);
  EXPECT_TRUE(budget.Admit(480));
}

TEST(DeviceMemoryBudget, NoLimitAdmitsEverything) {
  DeviceMemoryBudget budget(0);
  EXPECT_TRUE(budget.Admit(~std::size_t(0)));
  EXPECT_EQ(budget.refusals(), 0);
}

TEST(DeviceMemoryBudget, LimitComesFromTheEnvironmentAndNonsenseMeansNone) {
  setenv("LABKIT_DEVICE_MEMORY_LIMIT", "2147483648", 1);
  EXPECT_EQ(DeviceMemoryBudget::LimitFromEnvironment(), 2147483648u);
  setenv("LABKIT_DEVICE_MEMORY_LIMIT", "2GiB", 1);
  EXPECT_EQ(DeviceMemoryBudget::LimitFromEnvironment(), 0u);
  unsetenv("LABKIT_DEVICE_MEMORY_LIMIT");
  EXPECT_EQ(DeviceMemoryBudget::LimitFromEnvironment(), 0u);
}

TEST(DeviceMemoryBudget, TheRefusalNoteSaysWhatWasAskedAndWhatIsHeld) {
  DeviceMemoryBudget budget(std::size_t(2) << 30);
  budget.Allocated(&a, std::size_t(1536) << 20);
  const std::string note = budget.RefusalNote("cudaMalloc", std::size_t(1) << 30);
  EXPECT_EQ(note,
            "[labkit: cudaMalloc of 1073741824 bytes refused: this program already holds 1536 MiB "
            "of device memory and may hold 2048 MiB]\n");
}

// The harness reports the first refusal on its case line (harness_main.cpp), from which labgrade
// words its note: the numbers must be those of the moment it was refused.
TEST(DeviceMemoryBudget, KeepsTheFirstRefusalAsItWas) {
  DeviceMemoryBudget budget(100);
  EXPECT_FALSE(budget.first_refusal().has_value());
  budget.Allocated(&a, 70);
  EXPECT_FALSE(budget.Admit(40, "cudaMallocPitch"));
  budget.Freed(&a);
  EXPECT_FALSE(budget.Admit(200, "cudaMalloc"));  // a second refusal leaves the first as it was
  const auto first = budget.first_refusal();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->call, "cudaMallocPitch");
  EXPECT_EQ(first->bytes, 40);
  EXPECT_EQ(first->in_use_bytes, 70);
  EXPECT_EQ(first->limit_bytes, 100);
  EXPECT_EQ(budget.refusals(), 2);
}

}  // namespace
}  // namespace labkit
