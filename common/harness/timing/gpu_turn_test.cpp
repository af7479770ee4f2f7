#include "gpu_turn.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <stdexcept>

#include "gpu_turns.h"

namespace labkit {
namespace {

// A socket pair: the client's end and labgrade's, which the test answers from.
class GpuTurnTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, ends_), 0); }
  void TearDown() override {
    for (int fd : ends_)
      if (fd >= 0) close(fd);
  }
  char Receive() {
    char c = 0;
    return recv(ends_[1], &c, 1, 0) == 1 ? c : '?';
  }
  void Grant() {
    const char g = gpu_turns::kTurnGranted;
    ASSERT_EQ(send(ends_[1], &g, 1, 0), 1);
  }
  int ends_[2] = {-1, -1};
};

TEST_F(GpuTurnTest, AnAskedTurnWaitsForItsGrant) {
  GpuTurnClient client(ends_[0]);
  auto taken = std::async(std::launch::async, [&] { client.Take(GpuTurn::kExclusive); });
  EXPECT_EQ(Receive(), gpu_turns::kAskExclusive);
  EXPECT_EQ(taken.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  Grant();
  taken.get();
  EXPECT_EQ(client.held(), GpuTurn::kExclusive);
}

TEST_F(GpuTurnTest, GivingBackAsksForNoGrantAndTheSameTurnTwiceAsksOnce) {
  GpuTurnClient client(ends_[0]);
  auto taken = std::async(std::launch::async, [&] {
    client.Take(GpuTurn::kShared);
    client.Take(GpuTurn::kShared);
    client.Take(GpuTurn::kNone);
  });
  EXPECT_EQ(Receive(), gpu_turns::kAskShared);
  Grant();
  EXPECT_EQ(Receive(), gpu_turns::kGiveBack);
  taken.get();
  EXPECT_EQ(client.held(), GpuTurn::kNone);
}

TEST_F(GpuTurnTest, AGateThatClosesWhileTheProgramWaitsIsAnError) {
  GpuTurnClient client(ends_[0]);
  auto taken = std::async(std::launch::async, [&] { client.Take(GpuTurn::kExclusive); });
  EXPECT_EQ(Receive(), gpu_turns::kAskExclusive);
  close(ends_[1]);
  ends_[1] = -1;
  EXPECT_THROW(taken.get(), std::runtime_error);
  EXPECT_EQ(client.held(), GpuTurn::kNone);
}

TEST_F(GpuTurnTest, WithoutAGateEveryTurnIsANoOp) {
  GpuTurnClient client(-1);
  client.Take(GpuTurn::kExclusive);
  EXPECT_EQ(client.held(), GpuTurn::kNone);
}

}  // namespace
}  // namespace labkit
