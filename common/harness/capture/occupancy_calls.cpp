#include "occupancy_calls.h"

#include <atomic>

#include "capture_window.h"

namespace labkit {
namespace {

// Constant-initialised (no constructor runs), so a static initialiser that runs before this file's
// own still finds them ready.
std::atomic<bool> g_harness_started{false};
std::atomic<const char*> g_call_before_main{nullptr};

}  // namespace

using OccupancyWindow = CaptureWindow<OccupancyCall>;

OccupancyCallCapture::OccupancyCallCapture() { OccupancyWindow::open(); }

OccupancyCallCapture::~OccupancyCallCapture() { OccupancyWindow::close(); }

std::vector<OccupancyCall> OccupancyCallCapture::take() { return OccupancyWindow::take(); }

void NoteOccupancyCall(const char* call) {
  if (!g_harness_started.load()) {
    const char* none = nullptr;
    g_call_before_main.compare_exchange_strong(none, call);
    return;
  }
  OccupancyWindow::add({call});
}

void NoteHarnessStarted() { g_harness_started.store(true); }

const char* OccupancyCallBeforeMain() { return g_call_before_main.load(); }

}  // namespace labkit
