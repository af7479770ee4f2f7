#include "occupancy_calls.h"

#include <atomic>

#include "capture_window.h"

namespace labkit {
namespace {

// Constant-initialised (no constructor runs), so a static initialiser that runs before this file's
// own still finds them ready.
std::atomic<bool> g_harness_started{false};
std::atomic<const char*> g_call_before_main{nullptr};
std::atomic<bool> g_refusing{false};

}  // namespace

using OccupancyWindow = CaptureWindow<OccupancyCall>;

OccupancyCallCapture::OccupancyCallCapture(bool refuse_calls) {
  OccupancyWindow::open();
  g_refusing.store(refuse_calls);
}

OccupancyCallCapture::~OccupancyCallCapture() {
  g_refusing.store(false);
  OccupancyWindow::close();
}

std::vector<OccupancyCall> OccupancyCallCapture::take() { return OccupancyWindow::take(); }

bool NoteOccupancyCall(const char* call) {
  if (!g_harness_started.load()) {
    const char* none = nullptr;
    g_call_before_main.compare_exchange_strong(none, call);
    return true;
  }
  OccupancyWindow::add({call});
  return !g_refusing.load();
}

void NoteHarnessStarted() { g_harness_started.store(true); }

const char* OccupancyCallBeforeMain() { return g_call_before_main.load(); }

}  // namespace labkit
