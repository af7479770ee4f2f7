// The occupancy-API calls the link wraps note (occupancy_calls.h): those made inside a capture,
// and the first one made before the harness's main started; plain C++, tested on any machine.
#include "occupancy_calls.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// A global's initialiser, as a student's would call the API: before the harness's main.
const bool noted_before_main =
    (NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"), true);

TEST(OccupancyCalls, TheFirstCallBeforeMainIsKeptAndLaterOnesGoToTheCapture) {
  ASSERT_TRUE(noted_before_main);
  NoteHarnessStarted();  // what the harness's main does first
  EXPECT_STREQ(OccupancyCallBeforeMain(), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  NoteOccupancyCall("cudaOccupancyAvailableDynamicSMemPerBlock");  // no capture open: not kept
  {
    OccupancyCallCapture capture;
    NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    const std::vector<OccupancyCall> calls = capture.take();
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].call, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  }
  EXPECT_STREQ(OccupancyCallBeforeMain(), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

// The exercise worked out by hand withholds the API's answers while the student's function runs:
// the wraps refuse each call (and it is still noted), and answer again once the capture closes.
TEST(OccupancyCalls, ARefusingCaptureHasTheWrapsRefuse) {
  NoteHarnessStarted();
  EXPECT_TRUE(NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
  {
    OccupancyCallCapture noting;
    EXPECT_TRUE(NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
  }
  {
    OccupancyCallCapture refusing(/*refuse_calls=*/true);
    EXPECT_FALSE(NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
    EXPECT_EQ(refusing.take().size(), 1u);
  }
  EXPECT_TRUE(NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"));
}

}  // namespace
}  // namespace labkit
