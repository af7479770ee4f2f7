// Lab 04's exercise table, and the kit's side of its two query exercises: for the same kernel and
// launch the harness asks the CUDA runtime (cudaOccupancy*) what the student worked out by hand or
// chose, and reports both, with the answers that known mistakes would give.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "labkit/occupancy_formula.h"
#include "labkit/occupancy_hints.h"
#include "matmul_harness.h"
#include "occupancy_calls.h"
#include "occupancy_case_kernels.cuh"
#include "occupancy_lab.cuh"
#include "presented_device.cuh"
#include "query_harness.h"
#include "student_call.h"

namespace {

using labkit::Params;
using labkit::QueryValues;

std::string text(long long v) { return std::to_string(v); }

namespace formula = labkit::occupancy_formula;

// The student's answer to exercise 1, with the occupancy API refused: the kit compares the answer
// with that API's, so a call of it (direct, or through cudaOccupancyMaxPotentialBlockSize*) is the
// expected value copied. Seen by the link wraps while `call` runs, not read off the source.
// A call made by a static initialiser, before the harness started, counts too: its answers could be
// kept for the function to return.
template <class Call>
auto worked_out_by_hand(const char* function, Call&& call) {
  labkit::OccupancyCallCapture api(/*refuse_calls=*/true);
  auto answer = labkit::call_student(std::forward<Call>(call));
  const std::vector<labkit::OccupancyCall> calls = api.take();
  const char* before_main = labkit::OccupancyCallBeforeMain();
  const std::string how_to =
      ", which this exercise does not allow: work the number out by hand from the device's limits "
      "(cudaGetDeviceProperties) and the kernel's resources (cudaFuncGetAttributes), as the "
      "handout explains; the occupancy API is what your answer is compared with, and exercise 3 "
      "is where you use it";
  if (!calls.empty())
    throw labkit::RefusedCall(std::string(function) + " called " + calls.front().call + how_to);
  if (before_main != nullptr)
    throw labkit::RefusedCall(std::string("your program called ") + before_main +
                              " before the harness started (in the initialiser of a global or "
                              "static variable), and " +
                              function + " may return what it said" + how_to);
  return answer;
}

// A drawn case's multiprocessor (lab.yaml `drawn`: sm_warps, sm_blocks, sm_registers, sm_shared,
// sm_reserved, sm_warp_size): every limit of the device the expected answer is worked out from;
// none (threads 0) for lab.yaml's own cases, which run on the GPU as it is.
labkit::MultiprocessorLimits drawn_multiprocessor(const QueryValues& v) {
  labkit::MultiprocessorLimits sm;
  const long long warps = v.param("sm_warps", 0);
  if (warps <= 0) return sm;
  sm.blocks = static_cast<int>(v.param("sm_blocks", 0));
  sm.registers = static_cast<int>(v.param("sm_registers", 0));
  sm.shared = v.param("sm_shared", 0);
  sm.reserved = v.param("sm_reserved", -1);
  sm.warp_size = static_cast<int>(v.param("sm_warp_size", 0));
  if (sm.blocks <= 0 || sm.registers <= 0 || sm.shared <= 0 || sm.reserved < 0 || sm.warp_size <= 0)
    throw std::runtime_error(
        "lab.yaml draws sm_warps without sm_blocks, sm_registers, sm_shared, sm_reserved and "
        "sm_warp_size: the occupancy case's multiprocessor is incomplete");
  sm.threads = static_cast<int>(warps * sm.warp_size);
  sm.block_optin = sm.shared - sm.reserved;
  return sm;
}

// The multiprocessor a drawn case's device showed (`p`, read after the student's function
// returned), for labgrade to hold against the one it drew: expected values worked out for other
// limits would be a rewrite of the harness's memory while the student's code ran.
void worked_out_for_the_presented(const cudaDeviceProp& p, QueryValues& v) {
  const formula::Multiprocessor sm = multiprocessor_of(p);
  v.worked_out_for("sm_warp_size", sm.warp_size);
  v.worked_out_for("sm_warps", sm.threads / sm.warp_size);
  v.worked_out_for("sm_blocks", sm.blocks);
  v.worked_out_for("sm_registers", sm.registers);
  v.worked_out_for("sm_shared", sm.shared);
  v.worked_out_for("sm_reserved", sm.reserved);
}

// Whether the runtime reports the resources the kit's own kernels are built with (the student's
// kernels, pinned_registers 0, have whatever they have).
bool holds_pinned_resources(const CaseKernel& kernel, const cudaFuncAttributes& a) {
  return kernel.pinned_registers == 0 ||
         (a.numRegs == kernel.pinned_registers && a.sharedSizeBytes == 0);
}

void occupancy(const Params&, QueryValues& v) {
  const CaseKernel kernel = case_kernel(v.param("kernel", 0));
  const int threads = static_cast<int>(v.param("threads", 256));
  const long long dyn = v.param("dynamic_smem", 0);
  // A drawn case shows its own multiprocessor to every query of the device (the harness's below
  // too) until the case ends; its expected answer is then the handout's formula on that
  // multiprocessor, since the occupancy API answers for the GPU itself, and a function that
  // reached the real API past the wrap would copy the GPU's answer (docs/THREAT_MODEL.md).
  const labkit::MultiprocessorLimits drawn = drawn_multiprocessor(v);
  cudaDeviceProp gpu{};  // the GPU itself, for the hint of an answer made for it
  if (drawn.threads > 0 && cudaGetDeviceProperties(&gpu, 0) != cudaSuccess) gpu = {};
  std::optional<labkit::PresentedMultiprocessor> shown;
  if (drawn.threads > 0) shown.emplace(drawn);
#ifdef LABKIT_EMU
  // No resource report lists the kit's kernels: the CPU backend takes the count a GPU gives.
  if (kernel.pinned_registers > 0) emu::declare_registers(kernel.function, kernel.pinned_registers);
#endif
  cudaFuncAttributes a{};
  cudaError_t err = cudaFuncGetAttributes(&a, kernel.function);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  if (!holds_pinned_resources(kernel, a))
    throw std::runtime_error("the kit's occupancy kernel compiled to " + text(a.numRegs) +
                             " registers and " + text(static_cast<long long>(a.sharedSizeBytes)) +
                             " bytes of shared memory instead of the " +
                             text(kernel.pinned_registers) +
                             " registers and none its case needs "
                             "(labs/04_occupancy/occupancy_case_kernels.cuh)");

  // The student's answers first, the API's after: asked before, the expected value would sit in
  // this frame while the student's code runs, on the same thread, for it to read off the stack.
  const int blocks = worked_out_by_hand("max_active_blocks_per_sm", [&] {
    return max_active_blocks_per_sm(kernel.function, threads, static_cast<size_t>(dyn));
  });
  const double occupancy = worked_out_by_hand("theoretical_occupancy", [&] {
    return theoretical_occupancy(kernel.function, threads, static_cast<size_t>(dyn));
  });
  // The student's code has returned: the device and the kernel are read now (and the kernel
  // again), since a copy on this stack while it ran could be rewritten (a red-team pass zeroed a
  // copy's block limit, and the expected answer with it). What the expected values are worked out
  // for goes to labgrade, which holds it against the case it asked for (the case's parameters
  // sat in this process too).
  cudaDeviceProp p{};
  err = cudaGetDeviceProperties(&p, 0);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&a, kernel.function);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  // The kit's kernels' resources are the kit's: checked before the call (where a difference is
  // the kit's fault), so a difference now was made while the student's code ran (a red-team pass
  // rewrote the runtime's own records so that the kit's answer came out 0). Drawn cases ask about
  // these kernels alone, and their multiprocessor, reserve included, is the presented one.
  if (!holds_pinned_resources(kernel, a))
    throw labkit::RefusedCall(
        "the registers or shared memory the runtime reports for the grader's own kernel changed "
        "while your function ran (" +
        text(a.numRegs) + " registers, " + text(static_cast<long long>(a.sharedSizeBytes)) +
        " bytes): something in the submission "
        "changed the grader's memory");
  v.worked_out_for("kernel", case_kernel_number(kernel.function));
  v.worked_out_for("threads", threads);
  v.worked_out_for("dynamic_smem", dyn);
  const formula::Multiprocessor sm = multiprocessor_of(p);
  const formula::KernelResources resources = resources_of(a);
  const long long slots = sm.threads / sm.warp_size;
  if (shown) {
    worked_out_for_the_presented(p, v);
    // The expected values, and the hints of the formula's slips (which give the answer away), are
    // labgrade's, worked out from the case it drew (lab.yaml drawn.expected_by): none of them is
    // in this process, where the student's code could copy them into its answer on the way out
    // (a red-team pass hooked write() through the program's import table to do that).
    v.answer("active_blocks", blocks);
    v.answer("occupancy", occupancy);
    if (gpu.warpSize <= 0) return;
    // The GPU's own answer, which gives nothing away that the real occupancy API does not.
    const long long gpu_blocks =
        formula::active_blocks(multiprocessor_of(gpu), resources, threads, dyn);
    const std::string shown_device =
        "not for the device this case shows: cudaGetDeviceProperties gives it " + text(slots) +
        " warp slots, " + text(p.maxBlocksPerMultiProcessor) + " blocks, " +
        text(p.regsPerMultiprocessor) + " registers and " + text(p.sharedMemPerMultiprocessor) +
        " bytes of shared memory per SM. Read every limit from the device on every call, as the "
        "handout does";
    v.hint("active_blocks", gpu_blocks,
           "that is the answer for the GPU the grader runs on (limits written into the code, or "
           "read once and kept from an earlier call), " +
               shown_device);
    v.hint("occupancy", formula::occupancy(multiprocessor_of(gpu), gpu_blocks, threads),
           "that is the occupancy on the GPU the grader runs on, " + shown_device);
    return;
  }
  int expected = 0;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&expected, kernel.function, threads, dyn);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  v.compare("active_blocks", blocks, expected);
  v.compare("occupancy", occupancy, formula::occupancy(sm, expected, threads));
  // First match wins (query_grader.cpp), so the hints go from the most to the least common slip.
  for (const formula::Hint& h :
       formula::occupancy_hints(sm, resources, threads, dyn, p.multiProcessorCount))
    v.hint(h.value_name, h.value, h.cause);
}

// The student's side for `max_threads`, which must come from the occupancy API: a side returned
// with no call of it is a table or a guess, right only where it happens to match the cases asked.
int chosen_with_the_api(int max_threads) {
  labkit::OccupancyCallCapture api;
  const int side = labkit::call_student([&] { return choose_block_side(max_threads); });
  if (api.take().empty())
    throw labkit::RefusedCall(
        "choose_block_side returned a side without calling the occupancy API: this exercise asks "
        "for the side cudaOccupancyMaxPotentialBlockSizeVariableSMem suggests for "
        "matmul_dynamic_kernel, with "
        "required_shared_bytes and max_threads, called each time (the grader's limits vary)");
  return side;
}

// The kit's own choice, as the handout describes it. A drawn case (lab.yaml `drawn`) shows a
// multiprocessor of its own, as exercise 1's do, on which the occupancy API answers with the
// handout's formula (presented_device.cuh); its expected side is labgrade's, worked out from that
// multiprocessor and the student's kernel's resources as the build reports them
// (grader/values/drawn_expected.h): an expected side in this process is one the student's code
// could copy into its answer on the way out (r29).
void block_side(const Params& params, QueryValues& v) {
  const int max_threads = static_cast<int>(v.param("max_threads", 1024));
  (void)params;
  const labkit::MultiprocessorLimits drawn = drawn_multiprocessor(v);
  std::optional<labkit::PresentedMultiprocessor> shown;
  if (drawn.threads > 0) shown.emplace(drawn);
  // The student's side first, the API's after (as occupancy() does, for the same reason).
  const int chosen = chosen_with_the_api(max_threads);
  if (shown) {
    cudaDeviceProp p{};
    const cudaError_t err = cudaGetDeviceProperties(&p, 0);
    if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
    v.worked_out_for("max_threads", max_threads);
    worked_out_for_the_presented(p, v);
    v.answer("block_side", chosen);
    return;
  }
  int min_grid = 0, threads = 0;
  const cudaError_t err = cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      &min_grid, &threads, matmul_dynamic_kernel,
      [](int n) { return 2 * static_cast<size_t>(n) * sizeof(float); }, max_threads);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  v.compare("block_side", chosen, formula::power_of_two_side(threads));
  for (const formula::Hint& h : formula::block_side_hints(threads))
    v.hint(h.value_name, h.value, h.cause);
}

void dynamic_with_side(const float* A, const float* B, float* C, int m, int n, int k,
                       const Params& params) {
  const auto side = params.find("block_side");
  matmul_dynamic(A, B, C, m, n, k, side == params.end() ? 16 : static_cast<int>(side->second));
}

}  // namespace

std::vector<labkit::MatmulExercise> labkit::lab_exercises() {
  return {{"rows", matmul_rows, false},
          {"dynamic", nullptr, false, dynamic_with_side},
          {"auto", matmul_auto, false}};
}

std::vector<labkit::QueryExercise> labkit::lab_queries() {
  return {{"occupancy", occupancy}, {"block_side", block_side}};
}
