#include "launch_log.h"

#include "capture_window.h"

namespace labkit {

using LaunchWindow = CaptureWindow<LaunchRecord>;

LaunchCapture::LaunchCapture() {
  InstallLaunchHook();
  LaunchWindow::open();
}

LaunchCapture::~LaunchCapture() { LaunchWindow::close(); }

std::vector<LaunchRecord> LaunchCapture::take() { return LaunchWindow::take(); }

void RecordLaunch(const LaunchRecord& record) { LaunchWindow::add(record); }

}  // namespace labkit
