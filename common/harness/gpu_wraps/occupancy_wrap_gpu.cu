// GPU backend: the harness is linked with `--wrap` on the occupancy API's entry points
// (kGpuLinkWraps in link_wraps.h), so that the student's calls of them, direct or through the
// runtime's cudaOccupancyMaxPotentialBlockSize* templates (which end in the ...WithFlags call), are
// noted (occupancy_calls.h) and go on unchanged, but for a block above a presented device's
// limit, and for a presented multiprocessor (presented_device.cuh), whose answers the handout's
// formula gives: CUDA's templates then suggest a block size for that multiprocessor too. The
// cluster calls are not on the symbol allow-list at all, and the driver's cuOccupancy* fall under
// its refusal of the driver API.
#include <cuda_runtime.h>

#include "occupancy_calls.h"
#include "presented_device.cuh"

namespace {
// The runtime's answer as the device a query is shown has it (presented_device.cuh).
cudaError_t AsPresented(cudaError_t result, int* blocks, const void* func, int block_size,
                        size_t smem) {
  if (result == cudaSuccess && blocks != nullptr)
    labkit::PresentActiveBlocks(func, block_size, smem, *blocks);
  return result;
}
}  // namespace

extern "C" cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks,
                                                                            const void* func,
                                                                            int block_size,
                                                                            size_t smem);
extern "C" cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks,
                                                                            const void* func,
                                                                            int block_size,
                                                                            size_t smem) {
  if (!labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
    return cudaErrorNotPermitted;
  return AsPresented(
      __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, smem), blocks,
      func, block_size, smem);
}

extern "C" cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* func, int block_size, size_t smem, unsigned int flags);
extern "C" cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, const void* func, int block_size, size_t smem, unsigned int flags) {
  if (!labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"))
    return cudaErrorNotPermitted;
  return AsPresented(__real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                         blocks, func, block_size, smem, flags),
                     blocks, func, block_size, smem);
}

extern "C" cudaError_t __real_cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem,
                                                                        const void* func,
                                                                        int blocks,
                                                                        int block_size);
extern "C" cudaError_t __wrap_cudaOccupancyAvailableDynamicSMemPerBlock(size_t* smem,
                                                                        const void* func,
                                                                        int blocks,
                                                                        int block_size) {
  if (!labkit::NoteOccupancyCall("cudaOccupancyAvailableDynamicSMemPerBlock"))
    return cudaErrorNotPermitted;
  return __real_cudaOccupancyAvailableDynamicSMemPerBlock(smem, func, blocks, block_size);
}
