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

}  // namespace
}  // namespace labkit
