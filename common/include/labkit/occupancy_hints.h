// The answers the usual slips in lab 04's occupancy formula give, with their causes: each term of
// the formula left out in turn (occupancy_formula.h), and the occupancy counted in threads or over
// every SM; and exercise 3's, in the side taken from a suggested block size. The harness words them
// for lab.yaml's own cases, labgrade for the drawn ones, whose answers must not be in the process
// the student's code runs in (these hints give the answer away: the smallest of the four "limit is
// missing" values is the answer itself).
#pragma once

#include <string>
#include <vector>

#include "labkit/occupancy_formula.h"

namespace labkit::occupancy_formula {

struct Hint {
  std::string value_name;  // "active_blocks" or "occupancy"
  double value;
  std::string cause;
};

// Most common slip first (labgrade takes the first that matches). `processors`: the device's SM
// count, for the hint of an occupancy over every SM; 0 leaves that hint out.
inline std::vector<Hint> occupancy_hints(const Multiprocessor& sm, const KernelResources& kernel,
                                         long long threads, long long dynamic_shared,
                                         long long processors) {
  using std::to_string;
  const BlockLimits l = limits_of(sm, kernel, threads, dynamic_shared);
  const long long expected = l.min();
  const long long warps = warps_of(sm, threads);
  const long long slots = sm.threads / sm.warp_size;
  const long long warp_registers = round_up(kernel.registers * sm.warp_size, 256);
  const auto without = [&](Term term) {
    return static_cast<double>(limits_of(sm, kernel, threads, dynamic_shared, term).min());
  };
  std::vector<Hint> hints = {
      {"active_blocks", without(kSharedLimit),
       "the shared-memory limit is missing: each block needs " + to_string(l.smem_per_block) +
           " bytes (static + dynamic + the " + to_string(sm.reserved) +
           " the runtime reserves, in units of 128), so only " + to_string(l.shared) +
           " blocks fit in the SM's " + to_string(sm.shared) + " bytes"},
      {"active_blocks", without(kReserve),
       "the shared memory the runtime reserves for every block (reservedSharedMemPerBlock = " +
           to_string(sm.reserved) + " bytes) is missing"},
      {"active_blocks", without(kSharedUnit),
       "shared memory goes to a block in units of 128 bytes: round static + dynamic + reserved "
       "up to " +
           to_string(l.smem_per_block) + " before dividing"},
      {"active_blocks", without(kBlockLimit),
       "the limit on resident blocks per SM (maxBlocksPerMultiProcessor = " + to_string(sm.blocks) +
           ") is missing"},
      {"active_blocks", without(kRegisterLimit),
       "the register limit is missing: this kernel uses " + to_string(kernel.registers) +
           " registers per thread (cudaFuncAttributes::numRegs)"},
      {"active_blocks", without(kRegistersPerWarp),
       "registers go to whole warps, not threads: a warp of this kernel takes " +
           to_string(warp_registers) +
           " (numRegs x 32, rounded up to a multiple of 256), and a block takes " +
           to_string(warps) + " such warps"},
      {"active_blocks", without(kRegisterUnit),
       "registers are allocated to a warp in units of 256: " + to_string(kernel.registers) +
           " x 32 = " + to_string(kernel.registers * sm.warp_size) + " becomes " +
           to_string(warp_registers)},
      {"active_blocks", without(kSubPartitions),
       "registers are held per SM sub-partition: each of the 4 holds whole warps, so divide "
       "regsPerMultiprocessor / 4 by the registers of one warp before multiplying by 4"},
      {"active_blocks", without(kWarpLimit),
       "the warp-slot limit is missing: an SM holds maxThreadsPerMultiProcessor / 32 = " +
           to_string(slots) + " warps, and a block of " + to_string(threads) + " threads takes " +
           to_string(warps)},
      {"active_blocks", without(kWholeWarps),
       "a block of " + to_string(threads) + " threads takes " + to_string(warps) +
           " whole warps: divide the SM's " + to_string(slots) + " warp slots by " +
           to_string(warps) + ", not its " + to_string(sm.threads) + " threads by " +
           to_string(threads)}};
  if (processors > 0)
    hints.push_back(
        {"occupancy",
         static_cast<double>(expected) * threads / (static_cast<double>(sm.threads) * processors),
         "that divides by the threads of all " + to_string(processors) +
             " SMs, but the active blocks counted are those of one SM: divide by one "
             "SM's maxThreadsPerMultiProcessor"});
  hints.push_back({"occupancy", static_cast<double>(expected) * threads / sm.threads,
                   "a block of " + to_string(threads) + " threads still takes " + to_string(warps) +
                       " whole warp(s): count warps, not threads"});
  return hints;
}

// Exercise 3's slips, for a suggested block of `threads`: the square root taken without rounding
// down to a power of 4 first, and the API's threads returned as the side.
inline std::vector<Hint> block_side_hints(long long threads) {
  using std::to_string;
  const long long side = power_of_two_side(threads);
  long long root = 1;
  while ((root + 1) * (root + 1) <= threads) ++root;
  return {{"block_side", static_cast<double>(root),
           "the API suggested " + to_string(threads) +
               " threads; round that down to a power of 4 (" + to_string(side * side) +
               ") before taking the square root, so that the side is a power of two"},
          {"block_side", static_cast<double>(threads),
           "that is the API's number of threads (" + to_string(threads) +
               "); the side is the square root of " + to_string(side * side) +
               ", the power of 4 below it"}};
}

}  // namespace labkit::occupancy_formula
