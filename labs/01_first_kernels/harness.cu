// Lab 01's exercise table: the student's matrix functions by id, and the kit's side of the one
// query exercise (the largest width one block can take).
#include <cmath>

#include "first_kernels_lab.cuh"
#include "matmul_harness.h"
#include "query_harness.h"
#include "student_call.h"

namespace {

// The largest W with W * W <= threads (exact in integers, whatever sqrt rounds to).
int largest_square_side(int threads) {
  int side = static_cast<int>(std::sqrt(static_cast<double>(threads)));
  while (side * side > threads) --side;
  while ((side + 1) * (side + 1) <= threads) ++side;
  return side;
}

void max_width(const labkit::Params&, labkit::QueryValues& v) {
  cudaDeviceProp prop{};
  const cudaError_t err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  const int threads = prop.maxThreadsPerBlock;
  v.compare("width", labkit::call_student([] { return largest_one_block_width(); }),
            largest_square_side(threads));
  v.hint("width", threads,
         "that is the number of threads one block may hold; the width is the largest W with "
         "W x W threads within that limit");
  v.hint("width", largest_square_side(512),
         "22 was the answer on the first CUDA GPUs, whose blocks held 512 threads; read "
         "maxThreadsPerBlock from cudaGetDeviceProperties instead of using an old number");
  v.hint("width", 0, "the function still returns the starter's 0");
}

}  // namespace

std::vector<labkit::MatmulExercise> labkit::lab_exercises() {
  return {{"host", matmul_host, true},
          {"one_block", matmul_one_block, false},
          {"rows", matmul_rows, false}};
}

std::vector<labkit::QueryExercise> labkit::lab_queries() { return {{"max_width", max_width}}; }
