// The occupancy formula's view of a device and a kernel as the CUDA runtime reports them
// (occupancy_formula.h takes plain numbers, so that labgrade needs no CUDA): shared by lab 04's
// harness and GPU check and by the harness's presented multiprocessor (presented_device.cu).
#pragma once

#include <cuda_runtime.h>

#include "labkit/occupancy_formula.h"

namespace labkit::occupancy_formula {

inline Multiprocessor multiprocessor_of(const cudaDeviceProp& p) {
  return {p.warpSize,
          p.maxThreadsPerMultiProcessor,
          p.maxBlocksPerMultiProcessor,
          p.regsPerMultiprocessor,
          static_cast<long long>(p.sharedMemPerMultiprocessor),
          static_cast<long long>(p.reservedSharedMemPerBlock)};
}

inline KernelResources resources_of(const cudaFuncAttributes& a) {
  return {a.numRegs, static_cast<long long>(a.sharedSizeBytes), a.maxThreadsPerBlock,
          a.maxDynamicSharedSizeBytes};
}

}  // namespace labkit::occupancy_formula
