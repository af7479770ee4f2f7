// The CUDA occupancy API (cudaOccupancy*) as the student's code called it, seen by the link
// wraps (occupancy_wrap_gpu.cu, occupancy_hook_emu.cpp) while a capture is open around the
// student's function. Lab 04's first exercise asks for the number of resident blocks worked out by
// hand, and the harness compares it with this API's own answer: a call of the API there is the
// answer copied, whatever the source looks like, so the harness refuses the case (RefusedCall,
// student_call.h). The exercise that teaches the API (choose_block_side) opens no capture.
#pragma once

#include <string>
#include <vector>

namespace labkit {

struct OccupancyCall {
  std::string call;  // the runtime function, e.g. "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
};

// Records occupancy-API calls while alive (one at a time), like TransferCapture.
class OccupancyCallCapture {
 public:
  OccupancyCallCapture();
  ~OccupancyCallCapture();
  OccupancyCallCapture(const OccupancyCallCapture&) = delete;
  OccupancyCallCapture& operator=(const OccupancyCallCapture&) = delete;
  std::vector<OccupancyCall> take();
};

// `call` is a string literal (the wraps' own names).
void NoteOccupancyCall(const char* call);

// The harness's main has started. Before it only static initialisers run, the kit's and the
// student's, and the kit's never call the occupancy API: a call then is the student's, made before
// any of their functions is called, where no capture can see it (a table of answers kept for the
// functions to return). Lab 04 refuses its hand-worked exercises after such a call.
void NoteHarnessStarted();

// The first occupancy-API call made before NoteHarnessStarted, or null.
const char* OccupancyCallBeforeMain();

}  // namespace labkit
