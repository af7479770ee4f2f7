// Lab 04's exercise table, and the kit's side of its two query exercises: for the same kernel and
// launch the harness asks the CUDA runtime (cudaOccupancy*) what the student worked out by hand or
// chose, and reports both, with the answers that known mistakes would give.
#include <algorithm>
#include <climits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

long long round_up(long long value, long long unit) { return (value + unit - 1) / unit * unit; }

// The terms of the formula a variant leaves out (a mask), so that a student's value can be traced
// to the term it lacks.
enum Term : unsigned {
  kSharedLimit = 1u << 0,
  kReserve = 1u << 1,
  kSharedUnit = 1u << 2,
  kBlockLimit = 1u << 3,
  kRegisterLimit = 1u << 4,
  kSubPartitions = 1u << 5,
  kRegisterUnit = 1u << 6,
  kRegistersPerWarp = 1u << 7,
  kWarpLimit = 1u << 8,
  kWholeWarps = 1u << 9,
};

long long limit_or_none(bool omitted, long long limit) { return omitted ? INT_MAX : limit; }

struct Limits {
  long long threads, blocks, registers, shared, smem_per_block;
  long long min() const { return std::min({threads, blocks, registers, shared}); }
};

// The four limits on blocks per SM, worked out the way the handout explains (the calculator of
// cuda_occupancy.h for compute capability 8 and later), less the terms `omit` names.
Limits limits_of(const cudaDeviceProp& p, const cudaFuncAttributes& a, int threads, long long dyn,
                 unsigned omit) {
  Limits l{};
  const long long warps = (threads + p.warpSize - 1) / p.warpSize;
  l.threads =
      limit_or_none((omit & kWarpLimit), (omit & kWholeWarps)
                                             ? p.maxThreadsPerMultiProcessor / threads
                                             : p.maxThreadsPerMultiProcessor / p.warpSize / warps);
  l.blocks = limit_or_none((omit & kBlockLimit), p.maxBlocksPerMultiProcessor);
  const long long regs = p.regsPerMultiprocessor;
  const long long per_warp = (omit & kRegisterUnit)
                                 ? static_cast<long long>(a.numRegs) * p.warpSize
                                 : round_up(static_cast<long long>(a.numRegs) * p.warpSize, 256);
  if ((omit & kRegisterLimit) || per_warp == 0)
    l.registers = INT_MAX;
  else if ((omit & kRegistersPerWarp))
    l.registers = regs / (static_cast<long long>(a.numRegs) * threads);
  else
    l.registers =
        (omit & kSubPartitions) ? regs / per_warp / warps : regs / 4 / per_warp * 4 / warps;
  const long long total = static_cast<long long>(a.sharedSizeBytes) + dyn +
                          ((omit & kReserve) ? 0 : p.reservedSharedMemPerBlock);
  l.smem_per_block = (omit & kSharedUnit) ? total : round_up(total, 128);
  l.shared = (omit & kSharedLimit) || l.smem_per_block == 0
                 ? INT_MAX
                 : static_cast<long long>(p.sharedMemPerMultiprocessor) / l.smem_per_block;
  return l;
}

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
  const Limits l = limits_of(p, a, threads, dyn, 0);
  int expected = 0;
  if (shown) {
    v.worked_out_for("sm_warp_size", p.warpSize);
    v.worked_out_for("sm_warps", p.warpSize > 0 ? p.maxThreadsPerMultiProcessor / p.warpSize : 0);
    v.worked_out_for("sm_blocks", p.maxBlocksPerMultiProcessor);
    v.worked_out_for("sm_registers", p.regsPerMultiprocessor);
    v.worked_out_for("sm_shared", static_cast<long long>(p.sharedMemPerMultiprocessor));
    v.worked_out_for("sm_reserved", static_cast<long long>(p.reservedSharedMemPerBlock));
    // The API's own formula, as labs/04_occupancy/drawn_cases_check.cu checks on a GPU.
    expected = static_cast<int>(l.min());
  } else {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&expected, kernel.function, threads, dyn);
    if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  }
  const int warps = (threads + p.warpSize - 1) / p.warpSize;
  const int slots = p.maxThreadsPerMultiProcessor / p.warpSize;
  v.compare("active_blocks", blocks, expected);
  v.compare("occupancy", occupancy, static_cast<double>(expected * warps) / slots);

  const auto without = [&](unsigned omit) {
    return static_cast<double>(limits_of(p, a, threads, dyn, omit).min());
  };
  // First match wins (query_grader.cpp), so the hints go from the most to the least common slip.
  if (shown && gpu.warpSize > 0) {
    const int gpu_blocks = static_cast<int>(limits_of(gpu, a, threads, dyn, 0).min());
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
    v.hint(
        "occupancy",
        static_cast<double>(gpu_blocks * warps) / (gpu.maxThreadsPerMultiProcessor / gpu.warpSize),
        "that is the occupancy on the GPU the grader runs on, " + shown_device);
  }
  v.hint("active_blocks", without(kSharedLimit),
         "the shared-memory limit is missing: each block needs " + text(l.smem_per_block) +
             " bytes (static + dynamic + the " + text(p.reservedSharedMemPerBlock) +
             " the runtime reserves, in units of 128), so only " + text(l.shared) +
             " blocks fit in the SM's " + text(p.sharedMemPerMultiprocessor) + " bytes");
  v.hint("active_blocks", without(kReserve),
         "the shared memory the runtime reserves for every block "
         "(reservedSharedMemPerBlock = " +
             text(p.reservedSharedMemPerBlock) + " bytes) is missing");
  v.hint("active_blocks", without(kSharedUnit),
         "shared memory goes to a block in units of 128 bytes: round static + dynamic + reserved "
         "up to " +
             text(l.smem_per_block) + " before dividing");
  v.hint("active_blocks", without(kBlockLimit),
         "the limit on resident blocks per SM (maxBlocksPerMultiProcessor = " +
             text(p.maxBlocksPerMultiProcessor) + ") is missing");
  v.hint("active_blocks", without(kRegisterLimit),
         "the register limit is missing: this kernel uses " + text(a.numRegs) +
             " registers per thread (cudaFuncAttributes::numRegs)");
  v.hint("active_blocks", without(kRegistersPerWarp),
         "registers go to whole warps, not threads: a warp of this kernel takes " +
             text(round_up(static_cast<long long>(a.numRegs) * p.warpSize, 256)) +
             " (numRegs x 32, rounded up to a multiple of 256), and a block takes " + text(warps) +
             " such warps");
  v.hint("active_blocks", without(kRegisterUnit),
         "registers are allocated to a warp in units of 256: " + text(a.numRegs) +
             " x 32 = " + text(static_cast<long long>(a.numRegs) * p.warpSize) + " becomes " +
             text(round_up(static_cast<long long>(a.numRegs) * p.warpSize, 256)));
  v.hint("active_blocks", without(kSubPartitions),
         "registers are held per SM sub-partition: each of the 4 holds whole warps, so divide "
         "regsPerMultiprocessor / 4 by the registers of one warp before multiplying by 4");
  v.hint("active_blocks", without(kWarpLimit),
         "the warp-slot limit is missing: an SM holds maxThreadsPerMultiProcessor / 32 = " +
             text(slots) + " warps, and a block of " + text(threads) + " threads takes " +
             text(warps));
  v.hint("active_blocks", without(kWholeWarps),
         "a block of " + text(threads) + " threads takes " + text(warps) +
             " whole warps: divide the SM's " + text(slots) + " warp slots by " + text(warps) +
             ", not its " + text(p.maxThreadsPerMultiProcessor) + " threads by " + text(threads));
  v.hint("occupancy",
         static_cast<double>(expected) * threads /
             (static_cast<double>(p.maxThreadsPerMultiProcessor) * p.multiProcessorCount),
         "that divides by the threads of all " + text(p.multiProcessorCount) +
             " SMs, but the active blocks counted are those of one SM: divide by one SM's "
             "maxThreadsPerMultiProcessor");
  v.hint("occupancy", static_cast<double>(expected) * threads / p.maxThreadsPerMultiProcessor,
         "a block of " + text(threads) + " threads still takes " + text(warps) +
             " whole warp(s): count warps, not threads");
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

// The kit's own choice, as the handout describes it.
void block_side(const Params& params, QueryValues& v) {
  const int max_threads = static_cast<int>(v.param("max_threads", 1024));
  (void)params;
  // The student's side first, the API's after (as occupancy() does, for the same reason).
  const int chosen = chosen_with_the_api(max_threads);
  int min_grid = 0, threads = 0;
  const cudaError_t err = cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      &min_grid, &threads, matmul_dynamic_kernel,
      [](int n) { return 2 * static_cast<size_t>(n) * sizeof(float); }, max_threads);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  int power = 1, side = 1;
  while (power * 4 <= threads) power *= 4, side *= 2;
  v.compare("block_side", chosen, side);
  int root = 1;
  while ((root + 1) * (root + 1) <= threads) ++root;
  v.hint("block_side", root,
         "the API suggested " + text(threads) + " threads; round that down to a power of 4 (" +
             text(power) + ") before taking the square root, so that the side is a power of two");
  v.hint("block_side", threads,
         "that is the API's number of threads (" + text(threads) +
             "); the side is the square "
             "root of " +
             text(power) + ", the power of 4 below it");
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
