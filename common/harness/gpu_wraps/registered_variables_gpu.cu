// GPU backend: the device variables the program registers with the CUDA runtime, as its module
// constructors run (before main), wrapped at link time (kGpuLinkWraps) so that the replay knows
// which of the student's data symbols it may read back as device variables
// (initial_device_state.h).
#include <cuda_runtime.h>

#include "initial_device_state.h"

extern "C" void __real___cudaRegisterVar(void** fat_cubin_handle, char* host_var,
                                         char* device_address, const char* device_name, int ext,
                                         size_t size, int constant, int global);

extern "C" void __wrap___cudaRegisterVar(void** fat_cubin_handle, char* host_var,
                                         char* device_address, const char* device_name, int ext,
                                         size_t size, int constant, int global) {
  labkit::replay::NoteRegisteredVariable(host_var, constant != 0);
  __real___cudaRegisterVar(fat_cubin_handle, host_var, device_address, device_name, ext, size,
                           constant, global);
}
