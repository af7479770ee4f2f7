// GPU backend (student_device_code_gpu.cu), the kit's own replay program (docs/THREAT_MODEL.md):
// the student's device code without any of their host code. labgrade cuts the fatbinary out of each
// student object (the `.nv_fatbin` section nvcc wrote) and names, by the offsets the record run's
// plans use, the kernels and variables it holds; this loads the fatbinaries as CUDA libraries and
// hands the replay the library's kernel handles and variables' device addresses in place of the
// host stubs and shadows of a linked program. No static initialiser, atexit handler or other host
// code of the student's is in the process that makes the evidence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "replay_executor.h"

namespace labkit::replay {

// Loads `image.device_code` (fatbins beside the request, in `dir`). "" when loaded or when the
// image names none (a linked program's replay), else why not: a fault of the kit's, not the
// student's, since the fatbinaries are nvcc's own output.
std::string LoadStudentDeviceCode(const StudentImage& image, const std::string& dir);
bool StudentDeviceCodeLoaded();
// Unloads every library loaded so far and forgets their kernels and variables: a warm replay
// process's next request loads its own (warm_replay.h).
void UnloadStudentDeviceCode();

// The kernel the linked program had at `offset`, as a `cudaKernel_t` cast to the pointer type the
// runtime's launch and attribute calls take; null when the offset names no loaded kernel.
const void* StudentKernel(int64_t offset);

struct DeviceVariable {
  char* address = nullptr;  // in device memory
  std::size_t bytes = 0;
  bool constant = false;  // __constant__, by the loaded fatbinary's own symbol table
};
// The __device__ or __constant__ variable the linked program had at `offset`.
std::optional<DeviceVariable> StudentVariable(int64_t offset);

}  // namespace labkit::replay
