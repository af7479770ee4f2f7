#include "occupancy.h"

#include "device_model.h"
#include "errors.h"
#include "labkit_emu/runtime_api.h"

#if LABKIT_EMU_HAVE_CUDA_OCCUPANCY
#include <cuda_occupancy.h>
#endif

namespace emu::detail {

#if LABKIT_EMU_HAVE_CUDA_OCCUPANCY
namespace {
cudaOccFuncAttributes occ_function(const KernelInfo& k, int block_size_limit) {
  cudaOccFuncAttributes f(function_attributes(k));
  if (block_size_limit > 0 && block_size_limit < f.maxThreadsPerBlock) {
    f.maxThreadsPerBlock = block_size_limit;
  }
  return f;
}

cudaOccDeviceState occ_state(const KernelInfo& k) {
  cudaOccDeviceState s;
  s.carveoutConfig = k.carveout;
  return s;
}
}  // namespace

int active_blocks_per_sm(const KernelInfo& k, int block_size, size_t dynamic_smem) {
  const cudaOccDeviceProp prop(device_properties());
  const cudaOccFuncAttributes func = occ_function(k, 0);
  const cudaOccDeviceState state = occ_state(k);
  cudaOccResult result{};
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &func, &state, block_size,
                                              dynamic_smem) != CUDA_OCC_SUCCESS) {
    return 0;
  }
  return result.activeBlocksPerMultiprocessor;
}

cudaError_t max_potential_block_size(int* min_grid_size, int* block_size, const void* func,
                                     SmemOfBlock smem_of_block, const void* functor,
                                     int block_size_limit) {
  if (min_grid_size == nullptr || block_size == nullptr || func == nullptr) {
    return record(cudaErrorInvalidValue);
  }
  const KernelInfo& k = kernel_info(func);
  const cudaOccDeviceProp prop(device_properties());
  const cudaOccFuncAttributes attrs = occ_function(k, block_size_limit);
  const cudaOccDeviceState state = occ_state(k);
  auto smem = [&](int n) { return smem_of_block(functor, n); };
  if (cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(min_grid_size, block_size, &prop, &attrs,
                                                        &state, smem) != CUDA_OCC_SUCCESS) {
    return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
#else
int active_blocks_per_sm(const KernelInfo&, int, size_t) { return -1; }

cudaError_t max_potential_block_size(int*, int*, const void*, SmemOfBlock, const void*, int) {
  return record(cudaErrorNotSupported);
}
#endif
}  // namespace emu::detail

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size, size_t dynamic_smem) {
  using namespace emu::detail;
  if (num_blocks == nullptr || func == nullptr || block_size <= 0) {
    return record(cudaErrorInvalidValue);
  }
  const int n = active_blocks_per_sm(kernel_info(func), block_size, dynamic_smem);
  if (n < 0) return record(cudaErrorNotSupported);
  *num_blocks = n;
  return cudaSuccess;
}
