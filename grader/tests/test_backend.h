// The backend a whole-grader test executable checks, chosen by its --backend=cpu|gpu flag (CTest
// registers one entry per backend: grader/tests/CMakeLists.txt), and why that backend cannot run
// here, for GTEST_SKIP. Shared by mutants_test, occupancy_test and hostile_test.
#pragma once

#include <string>

#include "backend.h"
#include "manifest.h"

namespace labkit {

inline Backend& BackendUnderTest() {
  static Backend backend = Backend::kCpu;
  return backend;
}

// Reads --backend=gpu among the arguments gtest left (call after InitGoogleTest).
inline void SelectBackendFromArgs(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--backend=gpu") BackendUnderTest() = Backend::kGpu;
}

// "" when the backend under test can run here; otherwise the reason. The GPU reason starts with
// "no GPU here", which CTest's SKIP_REGULAR_EXPRESSION reports as skipped.
inline std::string WhyBackendUnavailable(const Manifest& manifest) {
  if (BackendUnderTest() == Backend::kGpu && !(manifest.gpu_backend && GpuPresent()))
    return "no GPU here: the gpu-labelled tests need one";
  if (BackendUnderTest() == Backend::kCpu && !manifest.emu_backend)
    return "this build has no CPU backend";
  return "";
}

}  // namespace labkit
