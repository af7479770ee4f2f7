// The device a harness ran on, as its "device" line reports it (docs/DESIGN.md, "Harness
// protocol"). One struct for both sides of the process boundary: the harness fills it
// (query_device) and writes it (device_line.h); labgrade reads it back from that line and keeps it
// in the report (grader/core/report.h).
#pragma once

#include <string>

namespace labkit {

struct DeviceInfo {
  std::string backend;  // "gpu" or "cpu"
  std::string name;     // "NVIDIA H100 80GB HBM3", or the modelled device on the CPU backend
  std::string compute_capability;  // "9.0"
  std::string driver;              // "13.0"; empty when unknown
  std::string runtime;             // "13.0"
  long long sm_clock_mhz = 0;      // 0 when unknown
  long long mem_clock_mhz = 0;
  long long multiprocessors = 0;
  long long l2_bytes = 0;
  // 1 where kernels can reach the process's ordinary host memory (cudaDevAttrPageableMemoryAccess:
  // HMM, or a Grace Hopper's ATS), and with it the kit's replay program's own pages.
  long long pageable_memory_access = 0;
};

}  // namespace labkit
