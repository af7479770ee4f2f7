// The occupancy API's answers for a kernel the student's code launched, over a grid of block sizes
// and dynamic shared-memory sizes. Used to check that the CPU backend's modelled GPU answers exactly
// as the real one does (grader/tests/occupancy_test.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace labkit {

struct OccupancyRow {
  int block_size = 0;
  std::size_t dynamic_shared_bytes = 0;
  int blocks_per_sm = -1;  // -1 when the API refused (the error's name is then in `error`)
  std::string error;
};

std::vector<OccupancyRow> ProbeOccupancy(const void* kernel);

}  // namespace labkit
