// GPU backend: the harness is linked with `--wrap` on the occupancy API's entry points
// (kGpuLinkWraps in link_wraps.h), so that the student's calls of them, direct or through the
// runtime's cudaOccupancyMaxPotentialBlockSize* templates (which end in the ...WithFlags call), are
// noted (occupancy_calls.h) and go on unchanged. The cluster calls are not on the symbol
// allow-list at all, and the driver's cuOccupancy* fall under its refusal of the driver API.
#include <cuda_runtime.h>

#include "occupancy_calls.h"

extern "C" cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks,
                                                                            const void* func,
                                                                            int block_size,
                                                                            size_t smem);
extern "C" cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks,
                                                                            const void* func,
                                                                            int block_size,
                                                                            size_t smem) {
  labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, smem);
}

extern "C" cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* func, int block_size, size_t smem, unsigned int flags);
extern "C" cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* func, int block_size, size_t smem, unsigned int flags) {
  labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  return __real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size,
                                                                       smem, flags);
}

extern "C" cudaError_t __real_cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem,
                                                                        const void* func,
                                                                        int blocks,
                                                                        int block_size);
extern "C" cudaError_t __wrap_cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem,
                                                                        const void* func,
                                                                        int blocks,
                                                                        int block_size) {
  labkit::NoteOccupancyCall("cudaOccupancyAvailableDynamicSMemPerBlock");
  return __real_cudaOccupancyAvailableDynamicSMemPerBlock(smem, func, blocks, block_size);
}
