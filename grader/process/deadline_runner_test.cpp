#include "deadline_runner.h"

#include <gtest/gtest.h>

#include <thread>

namespace labkit {
namespace {

class Recorder : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override {
    timeouts.push_back(command.timeout_seconds);
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
  }
  std::vector<double> timeouts;
};

TEST(DeadlineRunner, ClampsEachCommandToTheTimeLeft) {
  Recorder inner;
  DeadlineRunner runner(inner, 30);
  Command c;
  c.timeout_seconds = 600;
  EXPECT_TRUE(runner.Run(c).Succeeded());
  c.timeout_seconds = 5;
  EXPECT_TRUE(runner.Run(c).Succeeded());
  ASSERT_EQ(inner.timeouts.size(), 2u);
  EXPECT_LE(inner.timeouts[0], 30);
  EXPECT_GT(inner.timeouts[0], 29);
  EXPECT_EQ(inner.timeouts[1], 5);
  EXPECT_FALSE(runner.Expired());
}

TEST(DeadlineRunner, StartsNothingOnceSpent) {
  Recorder inner;
  DeadlineRunner runner(inner, 0.01);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const ProcessResult r = runner.Run(Command{});
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.start_error, "the submission's overall time limit (0 s) was spent");
  EXPECT_TRUE(inner.timeouts.empty());
  EXPECT_TRUE(runner.Expired());
}

}  // namespace
}  // namespace labkit
