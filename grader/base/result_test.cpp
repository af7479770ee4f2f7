#include "result.h"

#include <gtest/gtest.h>

#include <memory>

namespace labkit {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return MakeError("odd: " + std::to_string(x));
  return x / 2;
}

TEST(Result, HoldsValue) {
  Result<int> r = Half(8);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 4);
}

TEST(Result, HoldsError) {
  Result<int> r = Half(7);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "odd: 7");
}

TEST(Result, MovesOutMoveOnlyValue) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(3);
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 3);
}

TEST(Status, OkAndError) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = MakeError("boom");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "boom");
}

}  // namespace
}  // namespace labkit
