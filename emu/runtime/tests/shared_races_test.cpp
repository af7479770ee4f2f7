// Races on shared memory found from the accesses of a counted launch (src/instrument/
// shared_races.h), in a file compiled with the counting flags (tests/CMakeLists.txt): what is a
// race whatever order the threads run in, and what is not (a barrier, a warp barrier between
// threads of one warp, two atomics, two plain writes, a thread and itself).
#include <memory>
#include <utility>
#include <vector>

#include "counting_util.h"
#include "test_util.h"

namespace emu_test {
namespace {

constexpr int kThreads = 64;  // two warps

// Each thread reads its right neighbour's element, then overwrites its own. Without the barrier
// between the two, first-to-last order reads every element before its owner writes it, so the
// values come out right there (the reverse order would show it); the race is there in any order.
template <bool kBarrier>
__global__ void reads_neighbour_then_writes_own(float* out) {
  auto& s = emu::block_shared<float[kThreads], 300 + kBarrier>();
  const unsigned t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  const float right = t + 1 < kThreads ? s[t + 1] : 0.0f;
  if (kBarrier) __syncthreads();
  s[t] = right * 2.0f;
  __syncthreads();
  out[t] = s[t];
}

// One thread writes, the others read with no barrier between (read after write).
__global__ void reads_before_the_barrier(float* out) {
  auto& value = emu::block_shared<float, 302>();
  if (threadIdx.x == 40) value = 3.0f;
  out[threadIdx.x] = value;
}

// Within one warp, __syncwarp orders the lanes' shared-memory accesses.
__global__ void lanes_swap_through_a_warp_barrier(float* out) {
  auto& s = emu::block_shared<float[kThreads], 303>();
  const unsigned t = threadIdx.x, lane = t % 32, warp0 = t - lane;
  s[t] = static_cast<float>(t);
  __syncwarp();
  out[t] = s[warp0 + (lane + 1) % 32];
}

// The same without the warp barrier: a race between lanes of one warp.
__global__ void lanes_swap_without_a_warp_barrier(float* out) {
  auto& s = emu::block_shared<float[kThreads], 304>();
  const unsigned t = threadIdx.x, lane = t % 32, warp0 = t - lane;
  s[t] = static_cast<float>(t);
  out[t] = s[warp0 + (lane + 1) % 32];
}

// Every thread adds to one shared counter atomically, and one thread reads it after a barrier.
__global__ void counts_atomically(float* out) {
  auto& count = emu::block_shared<unsigned, 305>();
  auto& sum = emu::block_shared<float, 306>();
  if (threadIdx.x == 0) count = 0, sum = 0.0f;
  __syncthreads();
  atomicAdd(&count, 1u);
  atomicAdd(&sum, 0.5f);
  atomicMax(&count, 1u);
  __syncthreads();
  out[threadIdx.x] = static_cast<float>(count) + sum;
}

// A plain store into a counter other threads add to atomically, with no barrier between.
__global__ void stores_over_an_atomic_counter(float* out) {
  auto& count = emu::block_shared<unsigned, 307>();
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  if (threadIdx.x == 50)
    count = 7;
  else
    atomicAdd(&count, 1u);
  __syncthreads();
  out[threadIdx.x] = static_cast<float>(count);
}

// The CUDA Programming Guide's atomicCAS loop for a float maximum starts with a plain read of a
// word other threads' atomicCAS wrote: the loop corrects what it read, and it is no race here.
__device__ float atomic_max_float(float* address, float value) {
  int* word = reinterpret_cast<int*>(address);
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void guide_float_max(float* out) {
  auto& best = emu::block_shared<float, 313>();
  if (threadIdx.x == 0) best = -1.0f;
  __syncthreads();
  atomic_max_float(&best, static_cast<float>(threadIdx.x));
  __syncthreads();
  out[threadIdx.x] = best;
}

// Tiles stored with atomic exchanges and read plainly by other threads with no barrier between:
// a plain read of an atomically written word is excused only as an atomicCAS loop's first.
__global__ void reads_atomically_stored_tiles_early(float* out) {
  auto& s = emu::block_shared<float[kThreads], 314>();
  const unsigned t = threadIdx.x;
  atomicExch(&s[t], static_cast<float>(t));
  out[t] = t > 0 ? s[t - 1] : 0.0f;
}

// Every thread stores the same flag: two plain writes, harmless, and not reported.
__global__ void every_thread_sets_the_flag(float* out) {
  auto& flag = emu::block_shared<int, 308>();
  flag = 1;
  __syncthreads();
  out[threadIdx.x] = static_cast<float>(flag);
}

// Thread 0 clears the element every thread then stores, with no barrier between: two writes of
// different values (r32_clearing_races_the_loads_write_after_write).
__global__ void clears_then_stores_without_a_barrier(float* out) {
  auto& s = emu::block_shared<float[kThreads], 309>();
  const unsigned t = threadIdx.x;
  if (t == 0)
    for (int i = 0; i < kThreads; ++i) s[i] = 0.0f;
  s[t] = static_cast<float>(t + 1);
  __syncthreads();
  out[t] = s[t];
}

// A shuffle between a lane's store and another lane's read orders nothing in CUDA's memory model
// (r32_shuffle_taken_for_a_warp_barrier); __syncwarp does (lanes_swap_through_a_warp_barrier).
__global__ void lanes_swap_across_a_shuffle(float* out) {
  auto& s = emu::block_shared<float[kThreads], 310>();
  const unsigned t = threadIdx.x, lane = t % 32, warp0 = t - lane;
  s[t] = static_cast<float>(t);
  const float mine = __shfl_sync(0xffffffffu, s[t], lane);
  out[t] = mine + s[warp0 + (lane + 1) % 32];
}

// More __shared__ arrays than a GPU's block has room for: the record would lose the last ones.
template <int... I>
__device__ void touch_arrays(std::integer_sequence<int, I...>) {
  ((emu::block_shared<char, 1000 + I>() = 1), ...);
}
__global__ void declares_three_hundred_arrays(float* out) {
  touch_arrays(std::make_integer_sequence<int, 300>{});
  out[threadIdx.x] = 1.0f;
}

// The atomic entry called directly with a width of 0: the record is told the 4 bytes the
// exchange writes (r33_atomic_entry_called_with_zero_bytes), and another thread's plain read of
// them in the same phase is a race.
__global__ void exchanges_through_the_entry_with_no_width(float* out) {
  auto& s = emu::block_shared<float[kThreads], 311>();
  const unsigned t = threadIdx.x;
  unsigned long long bits = 0;
  const float value = static_cast<float>(t);
  __builtin_memcpy(&bits, &value, sizeof value);
  __emu_device_atomic(&s[t], 0, __emu_atomic_exchange, bits, 0);
  out[t] = s[(t + 1) % kThreads];
}

// The last thread copies a row over elements the others stored, in one copy (the counting copy a
// counted compile makes of memcpy), with no barrier between: the conflicting bytes lie past the
// first 16, and for 32 floats past the 64 compared (r33_wide_copy_overwrites_past_sixteen_bytes).
template <int kLength>
__global__ void copies_a_row_over_other_threads_stores(float* out) {
  auto& s = emu::block_shared<float[kThreads], 312 + kLength>();
  const unsigned t = threadIdx.x;
  s[t] = -1.0f;
  if (t == kThreads - 1) {
    float row[kLength];
    for (int i = 0; i < kLength; ++i) row[i] = static_cast<float>(i);
    __emu_device_memcpy(&s[0], row, sizeof row);
  }
  __syncthreads();
  out[t] = s[t];
}

void run_counted(void (*kernel)(float*), bool counted = true) {
  std::unique_ptr<CountingScope> counting(counted ? new CountingScope : nullptr);
  float* out = to_device(std::vector<float>(kThreads, 0.0f));
  emu::launch(kernel, dim3(2), dim3(kThreads), 0, 0, out);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(out);
}

TEST(SharedRacesDeathTest, AMissingBarrierIsARaceInAnyOrder) {
  EXPECT_EXIT(run_counted(reads_neighbour_then_writes_own<false>), testing::ExitedWithCode(86),
              "shared_race: threads [0-9]+ and [0-9]+ of a block of kernel");
  EXPECT_EXIT(run_counted(reads_before_the_barrier), testing::ExitedWithCode(86), "shared_race");
  EXPECT_EXIT(run_counted(lanes_swap_without_a_warp_barrier), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(stores_over_an_atomic_counter), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(reads_atomically_stored_tiles_early), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(clears_then_stores_without_a_barrier), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(lanes_swap_across_a_shuffle), testing::ExitedWithCode(86), "shared_race");
  EXPECT_EXIT(run_counted(exchanges_through_the_entry_with_no_width), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(copies_a_row_over_other_threads_stores<12>), testing::ExitedWithCode(86),
              "shared_race");
  EXPECT_EXIT(run_counted(copies_a_row_over_other_threads_stores<32>), testing::ExitedWithCode(86),
              "shared_race");
}

TEST(SharedRacesDeathTest, MoreArraysThanTheRecordHoldsEndTheRun) {
  EXPECT_EXIT(run_counted(declares_three_hundred_arrays), testing::ExitedWithCode(86),
              "shared_record_full: kernel .* has more __shared__ arrays");
}

TEST(SharedRaces, OrderedAccessesAreNone) {
  for (auto kernel : {reads_neighbour_then_writes_own<true>, lanes_swap_through_a_warp_barrier,
                      counts_atomically, every_thread_sets_the_flag, guide_float_max})
    run_counted(kernel);
}

// Only counted launches keep the record: an uncounted one runs as before, race and all.
TEST(SharedRaces, UncountedLaunchesAreNotChecked) {
  run_counted(reads_neighbour_then_writes_own<false>, /*counted=*/false);
}

}  // namespace
}  // namespace emu_test
