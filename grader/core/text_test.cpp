#include "text.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

TEST(Trimmed, DropsBlanksAtBothEndsOnly) {
  EXPECT_EQ(Trimmed("  used 1 barriers\r\n"), "used 1 barriers");
  EXPECT_EQ(Trimmed("\tGPU-a , b\t"), "GPU-a , b");
  EXPECT_EQ(Trimmed("plain"), "plain");
  EXPECT_EQ(Trimmed(" \t\r\n"), "");
  EXPECT_EQ(Trimmed(""), "");
}

}  // namespace
}  // namespace labkit
