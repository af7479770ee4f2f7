// The median time of a launch, by CUDA events, after one warm-up call: for the labs' measurement
// programs (the grader's own timing lives in common/harness/driver/matmul_device.cu).
#pragma once

#include <algorithm>
#include <vector>

#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"

namespace labkit {

template <class Launch>
double median_launch_ms(Launch launch, int reps = 20) {
  Event start, stop;
  launch();  // warm-up: module load, clocks
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(static_cast<std::size_t>(reps));
  for (float& t : ms) {
    start.record();
    launch();
    stop.record();
    t = stop.elapsed_since(start);
  }
  LABKIT_CUDA_CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace labkit
