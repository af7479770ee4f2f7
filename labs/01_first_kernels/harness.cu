// Lab 01's exercise table: the student's matrix functions by id, and the kit's side of the one
// query exercise (the largest width one block can take).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "first_kernels_lab.cuh"
#include "matmul_harness.h"
#include "occupancy_calls.h"
#include "presented_device.cuh"
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

// The device the student's function is shown: the GPU itself, or, with the parameter
// `max_threads_per_block` (drawn by labgrade from its seed, lab.yaml `drawn`), one whose
// blocks hold that many threads, presented through every runtime call that tells the limit
// (presented_device.cuh). The expected width is worked out here from the parameter and the kit's
// own reading of the GPU outside the presentation, not through the wraps: were a wrap missing, a
// right answer would fail rather than a hard-coded one pass.
void max_width(const labkit::Params&, labkit::QueryValues& v) {
  const int drawn = static_cast<int>(v.param("max_threads_per_block", 0));
  int student = 0;
  bool asked = false, occupancy_api = false;
  {
    std::optional<labkit::PresentedBlockLimit> shown;
    if (drawn > 0) shown.emplace(drawn);
    labkit::OccupancyCallCapture occupancy_calls;  // noted, for the hint below
    student = labkit::call_student([] { return largest_one_block_width(); });
    asked = shown && shown->asked();
    occupancy_api = !occupancy_calls.take().empty();
  }
  // The device only after the student's call, as every query harness of the kit reads it:
  // before, it would sit in this frame for the student's code to read off the stack.
  cudaDeviceProp prop{};
  const cudaError_t err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  const int threads =
      drawn > 0 ? std::min(drawn, prop.maxThreadsPerBlock) : prop.maxThreadsPerBlock;
  // `drawn` sat in this frame while the student's code ran, where it could be rewritten (to 0, the
  // GPU itself, for a width written in the source): labgrade holds the limit the width was worked
  // out for against the one it drew (QueryValues::worked_out_for).
  v.worked_out_for("max_threads_per_block", drawn > 0 ? threads : 0);
  // On the drawn device the answer must come from asking it: while it is shown, its limit is in
  // this process's memory, where a function could read it without asking (r18).
  if (drawn > 0 && !asked)
    throw labkit::RefusedCall(
        "largest_one_block_width returned " + std::to_string(student) +
        " without asking the device for its limit (nothing it called told it: no "
        "maxThreadsPerBlock from cudaGetDeviceProperties, cudaDeviceGetAttribute or "
        "cudaFuncGetAttributes, no launch refused for its size), on a device whose blocks hold " +
        std::to_string(threads) +
        " threads: a number written in the source, kept from an earlier call or worked out before "
        "main is not the device the function runs on; read maxThreadsPerBlock each time it is "
        "called");
  if (drawn > 0) {
    // The drawn device's width is labgrade's to work out (lab.yaml drawn.expected_by): worked out
    // here, it would be in this process, where the student's code could copy it into its answer.
    v.answer("width", student);
  } else {
    // A side of the block is held to the limit too (PresentDeviceProperties).
    const int longest_side = std::min({prop.maxThreadsDim[0], prop.maxThreadsDim[1], threads});
    v.compare("width", student, std::min(largest_square_side(threads), longest_side));
  }
  // Before the hints matched on the value alone (22 is also an old GPU's answer).
  if (occupancy_api)
    v.hint("width", student,
           "the occupancy API (cudaOccupancyMaxPotentialBlockSize) suggests the block size that "
           "keeps the SMs busiest, not the largest block the device takes; read maxThreadsPerBlock "
           "from cudaGetDeviceProperties instead");
  v.hint("width", threads,
         "that is the number of threads one block may hold; the width is the largest W with "
         "W x W threads within that limit");
  v.hint("width", largest_square_side(512),
         "22 was the answer on the first CUDA GPUs, whose blocks held 512 threads; read "
         "maxThreadsPerBlock from cudaGetDeviceProperties instead of using an old number");
  v.hint("width", largest_square_side(1024),
         "32 is the width where a block holds 1024 threads, but the device the function was "
         "called on holds " +
             std::to_string(threads) +
             "; read maxThreadsPerBlock from cudaGetDeviceProperties each time the function runs "
             "instead of assuming today's GPUs");
  v.hint("width", 0, "the function still returns the starter's 0");
}

}  // namespace

std::vector<labkit::MatmulExercise> labkit::lab_exercises() {
  return {{"host", matmul_host, true},
          {"one_block", matmul_one_block, false},
          {"rows", matmul_rows, false}};
}

std::vector<labkit::QueryExercise> labkit::lab_queries() { return {{"max_width", max_width}}; }
