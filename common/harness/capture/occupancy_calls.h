// The CUDA occupancy API (cudaOccupancy*) as the student's code called it, seen by the link
// wraps (occupancy_wrap_gpu.cu, occupancy_hook_emu.cpp) while a capture is open around the
// student's function. Lab 04's first exercise asks for the number of resident blocks worked out by
// hand, and the harness compares it with this API's own answer: a call of the API there is the
// answer copied, whatever the source looks like, so the harness refuses the case (RefusedCall,
// student_call.h). The exercise that teaches the API (choose_block_side) is refused the other way
// round: a side returned with no call of the API came from a table.
#pragma once

#include <string>
#include <vector>

namespace labkit {

struct OccupancyCall {
  std::string call;  // the runtime function, e.g. "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
};

// Records occupancy-API calls while alive (one at a time), like TransferCapture. With
// `refuse_calls`, the wraps also answer every call with cudaErrorNotPermitted and no numbers: the
// record lives in the student's process, where the function could erase it after using the API's
// answer (r22_occupancy_api_call_erased_from_the_capture), so the answer itself is withheld.
class OccupancyCallCapture {
 public:
  explicit OccupancyCallCapture(bool refuse_calls = false);
  ~OccupancyCallCapture();
  OccupancyCallCapture(const OccupancyCallCapture&) = delete;
  OccupancyCallCapture& operator=(const OccupancyCallCapture&) = delete;
  std::vector<OccupancyCall> take();
};

// `call` is a string literal (the wraps' own names). False when the wrap must refuse the call
// (an OccupancyCallCapture with `refuse_calls` is open) and return cudaErrorNotPermitted.
bool NoteOccupancyCall(const char* call);

// The harness's main has started. Before it only static initialisers run, the kit's and the
// student's, and the kit's never call the occupancy API: a call then is the student's, made before
// any of their functions is called, where no capture can see it (a table of answers kept for the
// functions to return). Lab 04 refuses its hand-worked exercises after such a call.
void NoteHarnessStarted();

// The first occupancy-API call made before NoteHarnessStarted, or null.
const char* OccupancyCallBeforeMain();

}  // namespace labkit
