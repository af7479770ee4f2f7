// Fiber stacks: no CUDA thread reads what an earlier one left on the stack it starts on (in every
// block, counted or not: fiber.h), deep stacks still work where their pages open on demand, and a
// runaway recursion is still a stack_overflow (memory_test.cpp, MemoryDeathTest).
#include "test_util.h"

namespace emu_test {
namespace {
constexpr unsigned kMarker = 0xC0FFEE11u;

// Reads the uninitialised slots of its frame, then leaves the marker in them for the next thread.
__device__ __attribute__((noinline, noipa)) int saw_and_left_marker() {
  volatile unsigned slot[64];
  int seen = 0;
  for (int i = 0; i < 64; ++i) seen |= slot[i] == kMarker;
  for (int i = 0; i < 64; ++i) slot[i] = kMarker;
  return seen;
}

// The same, `kDepth` bytes further down the stack.
template <int kDepth>
__device__ __attribute__((noinline, noipa)) int saw_marker_at_depth() {
  volatile char pad[kDepth];
  pad[0] = 0;
  return saw_and_left_marker() + pad[0];
}

template <int kDepth>
__global__ void probe_stale_stack(int* seen) {
  seen[blockIdx.x * blockDim.x + threadIdx.x] = saw_marker_at_depth<kDepth>();
}

// A thread that reaches a barrier keeps its fiber; the next thread starts on a fresh runner,
// which may be a stack an earlier block's thread used.
template <int kDepth>
__global__ void probe_stale_stack_with_barrier(int* seen) {
  const int s = saw_marker_at_depth<kDepth>();
  __syncthreads();
  seen[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

constexpr int kBlocks = 3, kThreads = 8;

template <void (*kKernel)(int*)>
int threads_that_saw_a_marker() {
  int* seen = to_device(std::vector<int>(kBlocks * kThreads, 0));
  emu::launch(kKernel, kBlocks, kThreads, 0, 0, seen);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> host = to_host(seen, kBlocks * kThreads);
  cudaFree(seen);
  int count = 0;
  for (int s : host) count += s;
  return count;
}

// A 60 KiB local array: far below the window a stack opens with.
__global__ void sum_of_a_deep_array(long long* out) {
  constexpr int kWords = 60 * 1024 / 8;
  volatile long long local[kWords];
  for (int i = 0; i < kWords; ++i) local[i] = i + threadIdx.x;
  long long sum = 0;
  for (int i = 0; i < kWords; ++i) sum += local[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
}  // namespace

// No thread of a block that counts nothing sees the marker an earlier thread left, near the top
// of the stack, 4 KiB down (in the window opened at the start) or 40 KiB down (opened on demand).
TEST(FiberStack, NoThreadReadsWhatAnEarlierThreadLeft) {
  for (const char* o : all_orders()) {
    OrderScope order(o);
    EXPECT_EQ(threads_that_saw_a_marker<probe_stale_stack<1>>(), 0) << o;
    EXPECT_EQ(threads_that_saw_a_marker<probe_stale_stack<4 * 1024>>(), 0) << o;
    EXPECT_EQ(threads_that_saw_a_marker<probe_stale_stack<40 * 1024>>(), 0) << o;
    EXPECT_EQ(threads_that_saw_a_marker<probe_stale_stack_with_barrier<4 * 1024>>(), 0) << o;
    EXPECT_EQ(threads_that_saw_a_marker<probe_stale_stack_with_barrier<40 * 1024>>(), 0) << o;
  }
}

TEST(FiberStack, DeepLocalArraysWork) {
  constexpr int kN = 4 * 32;
  long long* out = to_device(std::vector<long long>(kN, 0));
  emu::launch(sum_of_a_deep_array, 4, 32, 0, 0, out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<long long> host = to_host(out, kN);
  constexpr long long kWords = 60 * 1024 / 8;
  for (int t = 0; t < kN; ++t)
    EXPECT_EQ(host[t], kWords * (kWords - 1) / 2 + kWords * (t % 32)) << "thread " << t;
  cudaFree(out);
}
}  // namespace emu_test
