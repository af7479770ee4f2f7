// GPU backend: the rest of the device work a function can ask for, wrapped at link time
// (kGpuLinkWraps) so that a record run's plan holds it (replay_recorder.h): memsets, kernel
// attributes, and the calls the replay cannot repeat, which make the case fail with their name.
#include <cuda_runtime.h>

#include "replay_recorder.h"

#define LABKIT_WRAP_NOTED(NAME, PARAMS, ARGS, NOTE) \
  extern "C" cudaError_t __real_##NAME PARAMS;      \
  extern "C" cudaError_t __wrap_##NAME PARAMS {     \
    NOTE;                                           \
    return __real_##NAME ARGS;                      \
  }

using labkit::replay::NoteMemset;
using labkit::replay::NoteUnsupported;

LABKIT_WRAP_NOTED(cudaMemset, (void* ptr, int value, size_t count), (ptr, value, count),
                  NoteMemset(ptr, value, count))
LABKIT_WRAP_NOTED(cudaMemset_ptds, (void* ptr, int value, size_t count), (ptr, value, count),
                  NoteMemset(ptr, value, count))
LABKIT_WRAP_NOTED(cudaMemsetAsync, (void* ptr, int value, size_t count, cudaStream_t stream),
                  (ptr, value, count, stream), NoteMemset(ptr, value, count))
LABKIT_WRAP_NOTED(cudaMemsetAsync_ptsz, (void* ptr, int value, size_t count, cudaStream_t stream),
                  (ptr, value, count, stream), NoteMemset(ptr, value, count))
LABKIT_WRAP_NOTED(cudaMemset2D, (void* ptr, size_t pitch, int value, size_t width, size_t height),
                  (ptr, pitch, value, width, height), NoteUnsupported("cudaMemset2D"))
LABKIT_WRAP_NOTED(cudaMemset2DAsync,
                  (void* ptr, size_t pitch, int value, size_t width, size_t height,
                   cudaStream_t stream),
                  (ptr, pitch, value, width, height, stream), NoteUnsupported("cudaMemset2DAsync"))

LABKIT_WRAP_NOTED(cudaFuncSetAttribute, (const void* func, cudaFuncAttribute attr, int value),
                  (func, attr, value),
                  labkit::replay::NoteFuncAttribute(func, static_cast<int>(attr), value))

LABKIT_WRAP_NOTED(cudaLaunchKernelExC,
                  (const cudaLaunchConfig_t* config, const void* func, void** args),
                  (config, func, args), NoteUnsupported("cudaLaunchKernelEx"))
LABKIT_WRAP_NOTED(cudaLaunchCooperativeKernel,
                  (const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                   cudaStream_t stream),
                  (func, grid, block, args, shared, stream),
                  NoteUnsupported("cudaLaunchCooperativeKernel"))
