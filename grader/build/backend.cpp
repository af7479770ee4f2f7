#include "backend.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "process.h"
#include "text.h"

namespace labkit {

const BackendTraits& Traits(Backend backend) {
  static const BackendTraits kGpu{"gpu", false, false, false, false, false, false, false, true};
  static const BackendTraits kCpu{"cpu", true, true, true, true, true, true, true, false};
  return backend == Backend::kGpu ? kGpu : kCpu;
}

const char* ToString(Backend backend) { return Traits(backend).name; }
const char* ToString(Flavour flavour) {
  switch (flavour) {
    case Flavour::kDefault:
      return "default";
    case Flavour::kNoFma:
      return "nofma";
    case Flavour::kThreadSanitizer:
      return "tsan";
  }
  return "?";
}

namespace {

ProcessResult ListGpus() {
  SystemProcessRunner runner;
  Command probe;
  probe.argv = {"nvidia-smi", "-L"};
  probe.timeout_seconds = 20;
  return runner.Run(probe);
}

// "... (UUID: GPU-1234)" -> "GPU-1234"; "" when the line names none.
std::string UuidOf(const std::string& line) {
  const auto at = line.find("(UUID: ");
  if (at == std::string::npos) return "";
  const auto start = at + 7;
  const auto end = line.find(')', start);
  return Trimmed(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

}  // namespace

bool GpuPresent() {
  if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/nvidia0", F_OK) != 0) return false;
  const ProcessResult r = ListGpus();
  return r.Succeeded() && r.output.find("GPU 0") != std::string::npos;
}

std::vector<std::string> GpuIdsFromNvidiaSmiList(const std::string& text) {
  std::vector<std::string> ids;
  bool last_gpu_has_instances = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string trimmed = Trimmed(line);
    const std::string uuid = UuidOf(trimmed);
    if (uuid.empty()) continue;
    if (trimmed.rfind("GPU ", 0) == 0) {
      ids.push_back(uuid);
      last_gpu_has_instances = false;
    } else if (trimmed.rfind("MIG ", 0) == 0 && !ids.empty()) {
      if (!last_gpu_has_instances) ids.pop_back();  // the GPU itself is not a CUDA device then
      ids.push_back(uuid);
      last_gpu_has_instances = true;
    }
  }
  return ids;
}

std::vector<std::string> SplitVisibleDevices(const std::string& value) {
  std::vector<std::string> entries;
  std::istringstream parts(value);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const std::string entry = Trimmed(part);
    // Listed twice, one GPU would run two timed runs at once.
    if (!entry.empty() && std::find(entries.begin(), entries.end(), entry) == entries.end())
      entries.push_back(entry);
  }
  return entries;
}

std::vector<std::string> VisibleGpus() {
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    return SplitVisibleDevices(visible);
  const ProcessResult r = ListGpus();
  if (!r.Succeeded()) return {};
  return GpuIdsFromNvidiaSmiList(r.output);
}

}  // namespace labkit
