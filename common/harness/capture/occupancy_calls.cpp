#include "occupancy_calls.h"

#include "capture_window.h"

namespace labkit {

using OccupancyWindow = CaptureWindow<OccupancyCall>;

OccupancyCallCapture::OccupancyCallCapture() { OccupancyWindow::open(); }

OccupancyCallCapture::~OccupancyCallCapture() { OccupancyWindow::close(); }

std::vector<OccupancyCall> OccupancyCallCapture::take() { return OccupancyWindow::take(); }

void NoteOccupancyCall(const char* call) { OccupancyWindow::add({call}); }

}  // namespace labkit
