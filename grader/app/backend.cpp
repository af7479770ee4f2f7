#include "backend.h"

#include <unistd.h>

#include "process.h"

namespace labkit {

const char* ToString(Backend backend) { return backend == Backend::kGpu ? "gpu" : "cpu"; }
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

bool GpuPresent() {
  if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/nvidia0", F_OK) != 0) return false;
  SystemProcessRunner runner;
  Command probe;
  probe.argv = {"nvidia-smi", "-L"};
  probe.timeout_seconds = 20;
  const ProcessResult r = runner.Run(probe);
  return r.Succeeded() && r.output.find("GPU 0") != std::string::npos;
}

}  // namespace labkit
