// The GPU architecture nvcc is told to build for, derived in one place from the build's
// CMAKE_CUDA_ARCHITECTURES (the manifest's `cuda_architectures`). CMake's forms: "90", "90a",
// "80;90", "90-real", "100-virtual", "120", "native", "all", "all-major". The submission's build
// and the resource report take `-arch=sm_XX` (or nvcc's own native/all/all-major); the PTX read by
// the constant-memory check needs a virtual architecture, `-arch=compute_XX`, which has no
// native/all form: there the kit's default, 90, is used, since whether a kernel reads __constant__
// memory does not depend on the architecture.
#pragma once

#include <string>

namespace labkit {

struct CudaArch {
  std::string sm_flag;       // "-arch=sm_100", "-arch=native"
  std::string compute_flag;  // "-arch=compute_100", "-arch=compute_90" for native/all
};

CudaArch ResolveCudaArch(const std::string& cmake_architectures);

}  // namespace labkit
