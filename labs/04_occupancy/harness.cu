// Lab 04's exercise table, and the kit's side of its two query exercises: for the same kernel and
// launch the harness asks the CUDA runtime (cudaOccupancy*) what the student worked out by hand or
// chose, and reports both, with the answers that known mistakes would give.
#include <algorithm>
#include <climits>
#include <string>

#include "matmul_harness.h"
#include "occupancy_lab.cuh"
#include "query_harness.h"

namespace {

using labkit::Params;
using labkit::QueryValues;

std::string text(long long v) { return std::to_string(v); }

long long round_up(long long value, long long unit) { return (value + unit - 1) / unit * unit; }

// The four limits on blocks per SM, worked out the way the handout explains, so that a student's
// value can be traced to the limit it lacks.
struct Limits {
  int threads, blocks, registers, shared;
  long long smem_per_block;
};

Limits limits_of(const cudaDeviceProp& p, const cudaFuncAttributes& a, int threads, long long dyn,
                 bool reserved, bool sub_partitions) {
  Limits l{};
  const int warps = (threads + p.warpSize - 1) / p.warpSize;
  l.threads = p.maxThreadsPerMultiProcessor / p.warpSize / warps;
  l.blocks = p.maxBlocksPerMultiProcessor;
  const long long per_warp = round_up(static_cast<long long>(a.numRegs) * p.warpSize, 256);
  const long long regs = p.regsPerMultiprocessor;
  l.registers = per_warp == 0    ? INT_MAX
                : sub_partitions ? static_cast<int>(regs / 4 / per_warp * 4 / warps)
                                 : static_cast<int>(regs / per_warp / warps);
  l.smem_per_block = round_up(static_cast<long long>(a.sharedSizeBytes) + dyn +
                                  (reserved ? p.reservedSharedMemPerBlock : 0),
                              128);
  l.shared = l.smem_per_block == 0
                 ? INT_MAX
                 : static_cast<int>(static_cast<long long>(p.sharedMemPerMultiprocessor) /
                                    l.smem_per_block);
  return l;
}

const void* kernel_of(const Params& params) {
  return params.count("kernel") && params.at("kernel") == 1
             ? reinterpret_cast<const void*>(matmul_dynamic_kernel)
             : reinterpret_cast<const void*>(matmul_rows_kernel);
}

void occupancy(const Params& params, QueryValues& v) {
  const void* kernel = kernel_of(params);
  const int threads = static_cast<int>(v.param("threads", 256));
  const long long dyn = v.param("dynamic_smem", 0);
  cudaDeviceProp p{};
  cudaFuncAttributes a{};
  int expected = 0;
  cudaError_t err = cudaGetDeviceProperties(&p, 0);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&a, kernel);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&expected, kernel, threads, dyn);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));

  const int warps = (threads + p.warpSize - 1) / p.warpSize;
  const int slots = p.maxThreadsPerMultiProcessor / p.warpSize;
  v.compare("active_blocks", max_active_blocks_per_sm(kernel, threads, dyn), expected);
  v.compare("occupancy", theoretical_occupancy(kernel, threads, dyn),
            static_cast<double>(expected * warps) / slots);

  const Limits l = limits_of(p, a, threads, dyn, true, true);
  v.hint("active_blocks", std::min({l.threads, l.blocks, l.registers}),
         "the shared-memory limit is missing: each block needs " + text(l.smem_per_block) +
             " bytes (static + dynamic + the " + text(p.reservedSharedMemPerBlock) +
             " the runtime reserves, in units of 128), so only " + text(l.shared) +
             " blocks fit in the SM's " + text(p.sharedMemPerMultiprocessor) + " bytes");
  const Limits no_reserve = limits_of(p, a, threads, dyn, false, true);
  v.hint("active_blocks", std::min({l.threads, l.blocks, l.registers, no_reserve.shared}),
         "the shared memory the runtime reserves for every block "
         "(reservedSharedMemPerBlock = " +
             text(p.reservedSharedMemPerBlock) + " bytes) is missing");
  v.hint("active_blocks", std::min({l.threads, l.registers, l.shared}),
         "the limit on resident blocks per SM (maxBlocksPerMultiProcessor = " +
             text(p.maxBlocksPerMultiProcessor) + ") is missing");
  const Limits whole_sm = limits_of(p, a, threads, dyn, true, false);
  v.hint("active_blocks", std::min({l.threads, l.blocks, whole_sm.registers, l.shared}),
         "registers are held per SM sub-partition: each of the 4 holds whole warps, so divide "
         "regsPerMultiprocessor / 4 by the registers of one warp before multiplying by 4");
  v.hint("active_blocks", std::min({l.blocks, l.registers, l.shared}),
         "the warp-slot limit is missing: an SM holds maxThreadsPerMultiProcessor / 32 = " +
             text(slots) + " warps, and a block of " + text(threads) + " threads takes " +
             text(warps));
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

// The kit's own choice, as the handout describes it.
void block_side(const Params& params, QueryValues& v) {
  const int max_threads = static_cast<int>(v.param("max_threads", 1024));
  (void)params;
  int min_grid = 0, threads = 0;
  const cudaError_t err = cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      &min_grid, &threads, matmul_dynamic_kernel,
      [](int n) { return 2 * static_cast<size_t>(n) * sizeof(float); }, max_threads);
  if (err != cudaSuccess) return v.fail(cudaGetErrorName(err), cudaGetErrorString(err));
  int power = 1, side = 1;
  while (power * 4 <= threads) power *= 4, side *= 2;
  v.compare("block_side", choose_block_side(max_threads), side);
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
