#include "launch_log.h"

#include <mutex>

namespace labkit {
namespace {

// Kept small: a student loop that launches a million kernels must not eat the harness's memory.
constexpr std::size_t kMaxRecords = 64;

std::mutex g_mutex;
bool g_capturing = false;
std::vector<LaunchRecord> g_records;

}  // namespace

LaunchCapture::LaunchCapture() {
  InstallLaunchHook();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_records.clear();
  g_capturing = true;
}

LaunchCapture::~LaunchCapture() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_capturing = false;
}

std::vector<LaunchRecord> LaunchCapture::take() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return std::move(g_records);
}

void RecordLaunch(const LaunchRecord& record) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_capturing && g_records.size() < kMaxRecords) g_records.push_back(record);
}

}  // namespace labkit
