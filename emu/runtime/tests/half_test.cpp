// cuda_fp16.h and cuda_bf16.h on the CPU backend: a file that includes them compiles (CUDA's own
// headers redefine the vector types here), and the conversions round as the GPU does.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>

namespace {

TEST(Half, HasTheSizeOfTheGpuType) {
  EXPECT_EQ(sizeof(__half), 2u);
  EXPECT_EQ(sizeof(__half2), 4u);
  EXPECT_EQ(sizeof(__nv_bfloat16), 2u);
}

TEST(Half, ConvertsExactValuesBothWays) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f})
    EXPECT_EQ(__half2float(__float2half(f)), f) << f;
  EXPECT_EQ(__bfloat162float(__float2bfloat16(-3.0f)), -3.0f);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between two halves (1 and 1 + 2^-10): ties go to the even one, 1.
  EXPECT_EQ(__half2float(__float2half(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(__half2float(__float2half(1.0f + 3 * std::ldexp(1.0f, -11))),
            1.0f + std::ldexp(1.0f, -9));
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie, 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
  EXPECT_EQ(__bfloat162float(__float2bfloat16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(__bfloat162float(__float2bfloat16(1.0f + 3 * std::ldexp(1.0f, -8))),
            1.0f + std::ldexp(1.0f, -6));
  EXPECT_TRUE(std::isnan(__bfloat162float(__float2bfloat16(NAN))));
}

TEST(Half, ArithmeticRoundsBackToHalf) {
  EXPECT_EQ(__half2float(__hadd(__float2half(2048.0f), __float2half(1.0f))), 2048.0f);
  EXPECT_EQ(__half2float(__hmul(__float2half(1.5f), __float2half(2.0f))), 3.0f);
}

}  // namespace
