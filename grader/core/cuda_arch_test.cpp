#include "cuda_arch.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

struct ArchCase {
  const char* cmake;
  const char* sm;
  const char* compute;
};

class CudaArchTest : public ::testing::TestWithParam<ArchCase> {};

TEST_P(CudaArchTest, GivesFlagsNvccAccepts) {
  const CudaArch arch = ResolveCudaArch(GetParam().cmake);
  EXPECT_EQ(arch.sm_flag, GetParam().sm);
  EXPECT_EQ(arch.compute_flag, GetParam().compute);
}

// Before, the constant-memory check took the first two characters: "native" gave compute_na and
// "100" compute_10, both refused by nvcc (and the check then counted as passed).
INSTANTIATE_TEST_SUITE_P(
    CmakeForms, CudaArchTest,
    ::testing::Values(ArchCase{"90", "-arch=sm_90", "-arch=compute_90"},
                      ArchCase{"100", "-arch=sm_100", "-arch=compute_100"},
                      ArchCase{"120", "-arch=sm_120", "-arch=compute_120"},
                      ArchCase{"90a", "-arch=sm_90a", "-arch=compute_90a"},
                      ArchCase{"80;90", "-arch=sm_80", "-arch=compute_80"},
                      ArchCase{"100-real", "-arch=sm_100", "-arch=compute_100"},
                      ArchCase{"75-virtual;90", "-arch=sm_75", "-arch=compute_75"},
                      ArchCase{"native", "-arch=native", "-arch=compute_90"},
                      ArchCase{"all", "-arch=all", "-arch=compute_90"},
                      ArchCase{"all-major", "-arch=all-major", "-arch=compute_90"},
                      ArchCase{"", "-arch=sm_90", "-arch=compute_90"},
                      ArchCase{"OFF", "-arch=sm_90", "-arch=compute_90"}));

}  // namespace
}  // namespace labkit
