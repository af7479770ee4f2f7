// The names nvcc 13 gave each kind of variable and kernel (device_names.h), host and device.
#include "device_names.h"

#include <gtest/gtest.h>

namespace labkit::replay {
namespace {

TEST(DeviceNames, InternalMarksComeOut) {
  EXPECT_EQ(WithoutInternalMarks("_ZL8d_values"), "_Z8d_values");
  EXPECT_EQ(WithoutInternalMarks("_ZL8k_staticPf"), "_Z8k_staticPf");
  EXPECT_EQ(WithoutInternalMarks("_ZN2nsL11c_ns_staticE"), "_ZN2ns11c_ns_staticE");
  EXPECT_EQ(WithoutInternalMarks("_ZN2nsL1kEPf"), "_ZN2ns1kEPf");
  // A literal template argument is no mark.
  EXPECT_EQ(WithoutInternalMarks("_Z2tkILi4EEvPf"), "_Z2tkILi4EEvPf");
  EXPECT_EQ(WithoutInternalMarks("c_side"), "c_side");
}

TEST(DeviceNames, EachKindFindsItsDeviceSymbol) {
  EXPECT_TRUE(NamesTheSame("_ZL6c_side", "c_side"));
  EXPECT_TRUE(NamesTheSame("_ZL8k_staticPf", "_Z8k_staticPf"));
  EXPECT_TRUE(NamesTheSame("_ZN2nsL4d_nsE", "_ZN2ns4d_nsE"));
  EXPECT_TRUE(NamesTheSame("_ZN2nsL11c_ns_staticE",
                           "_ZN32_INTERNAL_9abd307d_4_n_cu__Z1hPf2ns11c_ns_staticE"));
  EXPECT_TRUE(NamesTheSame(
      "_ZN34_GLOBAL__N__9abd307d_4_n_cu__Z1hPfL6c_anonE",
      "_ZN32_INTERNAL_9abd307d_4_n_cu__Z1hPf34_GLOBAL__N__9abd307d_4_n_cu__Z1hPf6c_anonE"));
  EXPECT_TRUE(NamesTheSame("_Z9my_kernelPf", "_Z9my_kernelPf"));
  // From the student corpus's internal_linkage_names.
  EXPECT_TRUE(
      NamesTheSame("_ZN7kernelsL9tiled_anyEPKfS1_Pfiii", "_ZN7kernels9tiled_anyEPKfS1_Pfiii"));
  EXPECT_TRUE(NamesTheSame(
      "_ZN41_GLOBAL__N__8496d501_9_matmul_cu_295fd8caL6c_tileE",
      "_ZN39_INTERNAL_8496d501_9_matmul_cu_295fd8ca41_GLOBAL__N__8496d501_9_matmul_cu_295fd8ca6c_"
      "tileE"));
}

TEST(DeviceNames, OtherThingsDoNotMatch) {
  EXPECT_FALSE(NamesTheSame("_ZL6c_side", "c_sid"));
  EXPECT_FALSE(NamesTheSame("_ZN2nsL1vE", "_ZN3ns21vE"));
  EXPECT_FALSE(NamesTheSame("_ZN2nsL1vE", "_ZN4other2ns1vE"));  // no _INTERNAL_ component
  EXPECT_FALSE(NamesTheSame("_Z1kPf", "_Z1kPi"));
}

TEST(DeviceNames, CandidatesPutWhatTheLibraryHoldsFirst) {
  const std::vector<std::string> ptx = {"d_values", "_ZN32_INTERNAL_9abd307d_4_n_cu__Z1hPf2ns1cE"};
  EXPECT_EQ(DeviceNameCandidates("_ZN2nsL1cE", ptx),
            (std::vector<std::string>{"_ZN32_INTERNAL_9abd307d_4_n_cu__Z1hPf2ns1cE", "_ZN2ns1cE",
                                      "_ZN2nsL1cE"}));
  EXPECT_EQ(DeviceNameCandidates("_ZL8d_values", {}),
            (std::vector<std::string>{"d_values", "_Z8d_values", "_ZL8d_values"}));
}

}  // namespace
}  // namespace labkit::replay
