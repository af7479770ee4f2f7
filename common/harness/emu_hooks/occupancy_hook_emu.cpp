// CPU backend: the harness is linked with `--wrap` on emu's occupancy functions (kEmuLinkWraps in
// link_wraps.h): cudaOccupancyMaxActiveBlocksPerMultiprocessor, and the library function that
// emu's cudaOccupancyMaxPotentialBlockSize* templates end in. The student's calls are noted
// (occupancy_calls.h) and go on unchanged, but while a query is shown a device of its own
// (presented_device.cuh): the largest block size and the resident blocks of a block above its
// limit (none), and on a presented multiprocessor every answer; each wrapper takes the wrapped name
// through an asm label built from the same macro as the link line.
#include <climits>

#include "labkit_emu/runtime_api.h"
#include "link_wraps.h"
#include "occupancy_calls.h"
#include "presented_device.cuh"

extern "C" cudaError_t labkit_real_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem)
    __asm__("__real_" LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS);
extern "C" cudaError_t labkit_wrap_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem)
    __asm__("__wrap_" LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS);
extern "C" cudaError_t labkit_wrap_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem) {
  if (!labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
    return cudaErrorNotPermitted;
  const cudaError_t result = labkit_real_active_blocks(blocks, func, block_size, smem);
  if (result == cudaSuccess && blocks != nullptr)
    labkit::PresentActiveBlocks(func, block_size, smem, *blocks);
  return result;
}

extern "C" cudaError_t labkit_real_potential_block_size(
    int* min_grid_size, int* block_size, const void* func, emu::detail::SmemOfBlock smem_of_block,
    const void* functor, int block_size_limit)
    __asm__("__real_" LABKIT_EMU_MAX_POTENTIAL_BLOCK_SIZE);
extern "C" cudaError_t labkit_wrap_potential_block_size(
    int* min_grid_size, int* block_size, const void* func, emu::detail::SmemOfBlock smem_of_block,
    const void* functor, int block_size_limit)
    __asm__("__wrap_" LABKIT_EMU_MAX_POTENTIAL_BLOCK_SIZE);
extern "C" cudaError_t labkit_wrap_potential_block_size(
    int* min_grid_size, int* block_size, const void* func, emu::detail::SmemOfBlock smem_of_block,
    const void* functor, int block_size_limit) {
  if (!labkit::NoteOccupancyCall("cudaOccupancyMaxPotentialBlockSize"))
    return cudaErrorNotPermitted;
  // emu works this out from its own device model, where CUDA's template reads the wrapped
  // attributes (device_query_wrap_gpu.cu): a presented multiprocessor's suggestion is therefore
  // worked out here, and a presented block limit caps emu's as it caps CUDA's.
  if (min_grid_size != nullptr && block_size != nullptr && func != nullptr &&
      labkit::PresentSuggestedBlock(func, smem_of_block, functor, block_size_limit, *min_grid_size,
                                    *block_size))
    return cudaSuccess;
  const int limit = labkit::PresentedThreadLimit(block_size_limit > 0 ? block_size_limit : INT_MAX);
  return labkit_real_potential_block_size(min_grid_size, block_size, func, smem_of_block, functor,
                                          limit == INT_MAX ? 0 : limit);
}
