// lab03 matmul -- tiled_any
//
// The harness keeps the launches it sees in a std::vector<labkit::LaunchRecord>. If my file has a
// labkit::LaunchRecord of its own (one byte) and grows a vector of them, it carries its own copy of
// std::vector<labkit::LaunchRecord>::_M_realloc_insert, and the linker keeps only one copy of each
// template instance: if mine comes first, the harness grows its records with the wrong size.
#include <vector>

#include "../../common/correct_kernels.cuh"

namespace labkit {
struct LaunchRecord {
  char nothing;
};
}  // namespace labkit

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static std::vector<labkit::LaunchRecord> mine;
  mine.push_back(labkit::LaunchRecord{});
  matmul_rows(A, B, C, m, n, k);
}
