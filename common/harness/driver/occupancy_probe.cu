#include "occupancy_probe.h"

#include <cuda_runtime.h>

namespace labkit {

std::vector<OccupancyRow> ProbeOccupancy(const void* kernel) {
  std::vector<OccupancyRow> rows;
  for (int block : {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}) {
    for (std::size_t smem : {std::size_t(0), std::size_t(4096), std::size_t(16384), std::size_t(40960)}) {
      OccupancyRow row;
      row.block_size = block;
      row.dynamic_shared_bytes = smem;
      const cudaError_t status =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row.blocks_per_sm, kernel, block, smem);
      if (status != cudaSuccess) {
        row.blocks_per_sm = -1;
        row.error = cudaGetErrorName(status);
        cudaGetLastError();
      }
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace labkit
