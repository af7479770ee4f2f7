// The CPU backend's cooperative groups (CUDA's <cooperative_groups.h>): the thread block, which a
// tiled kernel may use in place of threadIdx and __syncthreads(). Without this header g++ found
// CUDA's own, which declares nothing outside nvcc, and a correct kernel failed with "not a
// namespace-name". The other groups (tiles of a warp, the grid, the coalesced threads) are
// refused where they are used, saying what to write instead.
#pragma once

#include "labkit_emu/device_functions.h"
#include "labkit_emu/vector_types.h"

namespace cooperative_groups {

class thread_block {
 public:
  // A barrier of the whole block, as __syncthreads(); a diagnostic names the caller's line.
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    ::emu::detail::barrier_block(file, line, ::emu::detail::BarrierOp::plain, 0);
  }
  unsigned long long thread_rank() const {
    return threadIdx.x +
           static_cast<unsigned long long>(blockDim.x) *
               (threadIdx.y + static_cast<unsigned long long>(blockDim.y) * threadIdx.z);
  }
  unsigned long long num_threads() const {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
  unsigned long long size() const { return num_threads(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

inline void sync(const thread_block& block, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  block.sync(file, line);
}

namespace unsupported {
template <class T>
inline constexpr bool kNever = false;
}  // namespace unsupported

// Each returns a block only so that the message below, not a use of its result, is the first error.
template <unsigned Size = 0, class Group = thread_block>
thread_block tiled_partition(const Group&, unsigned = 0) {
  static_assert(unsupported::kNever<Group>,
                "cooperative_groups::tiled_partition is not supported on the CPU backend: use "
                "__shfl_sync / __syncwarp with threadIdx, or grade on a GPU");
  return thread_block();
}

template <class Group = thread_block>
thread_block this_grid(Group* = nullptr) {
  static_assert(unsupported::kNever<Group>,
                "cooperative_groups::this_grid (a grid-wide barrier) is not supported on the CPU "
                "backend: end the kernel and launch another, or grade on a GPU");
  return thread_block();
}

template <class Group = thread_block>
thread_block coalesced_threads(Group* = nullptr) {
  static_assert(unsupported::kNever<Group>,
                "cooperative_groups::coalesced_threads is not supported on the CPU backend: use "
                "__activemask and the warp functions, or grade on a GPU");
  return thread_block();
}

}  // namespace cooperative_groups
