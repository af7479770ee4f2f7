// The handout's formula for how many blocks of a kernel one SM holds at a time (lab 04), on plain
// numbers: the cuda_occupancy.h calculator's rules for compute capability 8 and later. Two users,
// one formula: lab 04's harness works its hints out with it (each term left out in turn, so that a
// wrong answer can be traced to the term it lacks), and labgrade the expected answers of the drawn
// cases, in its own process, from the multiprocessor it drew (grader/values/drawn_expected.h).
// Host code only, no CUDA types, so that labgrade needs no CUDA to include it.
#pragma once

#include <algorithm>
#include <climits>

namespace labkit::occupancy_formula {

// The limits of one multiprocessor the formula reads (cudaDeviceProp's names in the comments).
struct Multiprocessor {
  long long warp_size = 32;  // warpSize
  long long threads = 0;     // maxThreadsPerMultiProcessor
  long long blocks = 0;      // maxBlocksPerMultiProcessor
  long long registers = 0;   // regsPerMultiprocessor
  long long shared = 0;      // sharedMemPerMultiprocessor
  long long reserved = 0;    // reservedSharedMemPerBlock
};

// What a kernel holds per thread and per block (cudaFuncAttributes::numRegs, sharedSizeBytes), and
// what one launch of it may ask (maxThreadsPerBlock, maxDynamicSharedSizeBytes; no limit unless
// given): the occupancy API holds no block of a launch the kernel refuses (launchable_blocks).
struct KernelResources {
  long long registers = 0;
  long long static_shared = 0;
  long long max_threads = LLONG_MAX;
  long long max_dynamic_shared = LLONG_MAX;
};

// The terms of the formula a variant leaves out (a mask).
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

// The four limits on blocks per SM, and the shared memory one block takes.
struct BlockLimits {
  long long threads = 0, blocks = 0, registers = 0, shared = 0, smem_per_block = 0;
  long long min() const { return std::min({threads, blocks, registers, shared}); }
};

inline long long round_up(long long value, long long unit) {
  return (value + unit - 1) / unit * unit;
}

inline long long warps_of(const Multiprocessor& sm, long long threads) {
  return (threads + sm.warp_size - 1) / sm.warp_size;
}

// The limits as the handout works them out, less the terms `omit` names.
inline BlockLimits limits_of(const Multiprocessor& sm, const KernelResources& kernel,
                             long long threads, long long dynamic_shared, unsigned omit = 0) {
  const auto unless = [omit](Term term, long long limit) {
    return (omit & term) ? static_cast<long long>(INT_MAX) : limit;
  };
  BlockLimits l;
  const long long warps = warps_of(sm, threads);
  l.threads = unless(
      kWarpLimit, (omit & kWholeWarps) ? sm.threads / threads : sm.threads / sm.warp_size / warps);
  l.blocks = unless(kBlockLimit, sm.blocks);
  const long long per_warp = (omit & kRegisterUnit)
                                 ? kernel.registers * sm.warp_size
                                 : round_up(kernel.registers * sm.warp_size, 256);
  if ((omit & kRegisterLimit) || per_warp == 0)
    l.registers = INT_MAX;
  else if (omit & kRegistersPerWarp)
    l.registers = sm.registers / (kernel.registers * threads);
  else
    l.registers = (omit & kSubPartitions) ? sm.registers / per_warp / warps
                                          : sm.registers / 4 / per_warp * 4 / warps;
  const long long total =
      kernel.static_shared + dynamic_shared + ((omit & kReserve) ? 0 : sm.reserved);
  l.smem_per_block = (omit & kSharedUnit) ? total : round_up(total, 128);
  l.shared =
      (omit & kSharedLimit) || l.smem_per_block == 0 ? INT_MAX : sm.shared / l.smem_per_block;
  return l;
}

// Blocks per SM, and the theoretical occupancy they give: the warps they hold over the SM's slots.
inline long long active_blocks(const Multiprocessor& sm, const KernelResources& kernel,
                               long long threads, long long dynamic_shared) {
  return limits_of(sm, kernel, threads, dynamic_shared).min();
}
// The occupancy API's answer: none for a launch of more threads, or more dynamic shared memory,
// than the kernel takes.
inline long long launchable_blocks(const Multiprocessor& sm, const KernelResources& kernel,
                                   long long threads, long long dynamic_shared) {
  if (threads > kernel.max_threads || dynamic_shared > kernel.max_dynamic_shared) return 0;
  return active_blocks(sm, kernel, threads, dynamic_shared);
}
inline double occupancy(const Multiprocessor& sm, long long blocks, long long threads) {
  return static_cast<double>(blocks * warps_of(sm, threads)) /
         static_cast<double>(sm.threads / sm.warp_size);
}

// The block size cudaOccupancyMaxPotentialBlockSizeVariableSMem suggests (cuda_runtime.h's
// template, lab 04's exercise 3), on plain numbers. It tries every multiple of the warp size from
// `block_limit` down (the first try is block_limit itself where that is not a multiple), asks each
// size's blocks per SM with the dynamic shared memory `shared_of(size)` (launchable_blocks), and
// keeps the first size whose blocks hold the most threads, stopping once they fill the SM.
// `block_limit`: the caller's limit, held to the device's and the kernel's maxThreadsPerBlock
// (suggestion_limit).
struct Suggestion {
  long long threads = 0;  // the suggested block size; 0 when no size fits at all
  long long blocks = 0;   // its blocks per SM
};
template <class SharedOf>
Suggestion suggested_block(const Multiprocessor& sm, const KernelResources& kernel,
                           long long block_limit, SharedOf&& shared_of) {
  Suggestion best;
  long long most_threads = 0;
  for (long long aligned = round_up(block_limit, sm.warp_size); aligned > 0;
       aligned -= sm.warp_size) {
    const long long tried = std::min(block_limit, aligned);
    const long long blocks = launchable_blocks(sm, kernel, tried, shared_of(tried));
    if (blocks * tried > most_threads) {
      most_threads = blocks * tried;
      best = {tried, blocks};
    }
    if (most_threads == sm.threads) break;
  }
  return best;
}

// The template's limit: the caller's (0 for none), held to the device's and the kernel's own.
inline long long suggestion_limit(long long asked, long long device_threads,
                                  long long kernel_threads) {
  const long long limit = asked > 0 ? std::min(asked, device_threads) : device_threads;
  return std::min(limit, kernel_threads);
}

// Lab 04's square block from a suggested size: the side of the largest power of 4 at most
// `threads` (1 for fewer than 4), in integers, since a floating root of an exact power can round
// below it.
inline long long power_of_two_side(long long threads) {
  long long power = 1, side = 1;
  while (power * 4 <= threads) power *= 4, side *= 2;
  return side;
}

}  // namespace labkit::occupancy_formula
