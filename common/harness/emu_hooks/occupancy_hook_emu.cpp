// CPU backend: the harness is linked with `--wrap` on emu's occupancy functions (kEmuLinkWraps in
// link_wraps.h): cudaOccupancyMaxActiveBlocksPerMultiprocessor, and the library function that
// emu's cudaOccupancyMaxPotentialBlockSize* templates end in. The student's calls are noted
// (occupancy_calls.h) and go on unchanged; each wrapper takes the wrapped name through an asm
// label built from the same macro as the link line.
#include "labkit_emu/runtime_api.h"
#include "link_wraps.h"
#include "occupancy_calls.h"

extern "C" cudaError_t labkit_real_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem)
    __asm__("__real_" LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS);
extern "C" cudaError_t labkit_wrap_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem)
    __asm__("__wrap_" LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS);
extern "C" cudaError_t labkit_wrap_active_blocks(int* blocks, const void* func, int block_size,
                                                 size_t smem) {
  labkit::NoteOccupancyCall("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return labkit_real_active_blocks(blocks, func, block_size, smem);
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
  labkit::NoteOccupancyCall("cudaOccupancyMaxPotentialBlockSize");
  return labkit_real_potential_block_size(min_grid_size, block_size, func, smem_of_block, functor,
                                          block_size_limit);
}
