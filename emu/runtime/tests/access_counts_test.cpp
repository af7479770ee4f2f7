// Counting memory accesses (labkit_emu/access_counts.h): kernels whose loads and stores are known
// exactly, in a file compiled with the counting flags (tests/CMakeLists.txt), as labgrade compiles
// a submission for its counting run.
#include "labkit_emu/access_counts.h"

#include <vector>

#include "access_counter.h"
#include "counting_util.h"
#include "sealed_tables.h"
#include "test_util.h"

namespace emu_test {
namespace {

__global__ void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

// Internal linkage: a template shared with another test file (kernels.h) could be linked from that
// file's uninstrumented copy.
constexpr int TILE = 16;
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n, int k) {
  auto& As = emu::block_shared<float[TILE][TILE], 200>();
  auto& Bs = emu::block_shared<float[TILE][TILE], 201>();
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * k + col];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  C[row * k + col] = acc;
}

// Sums each block's slice through dynamic shared memory: one float4 global load per thread.
__global__ void sum_float4(const float4* in, float* out) {
  float* partial = emu::dynamic_shared<float>();
  const int t = threadIdx.x;
  const float4 v = in[blockIdx.x * blockDim.x + t];
  partial[t] = v.x + v.y + v.z + v.w;
  __syncthreads();
  if (t == 0) {
    float s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

struct Product {
  int m, n, k;
  float *A, *B, *C;
  Product(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    A = to_device(std::vector<float>(size_t(m) * n, 1.0f));
    B = to_device(std::vector<float>(size_t(n) * k, 2.0f));
    C = to_device(std::vector<float>(size_t(m) * k, 0.0f));
  }
  ~Product() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
};

TEST(AccessCounts, RowsKernelLoadsTwoNFloatsPerElement) {
  CountingScope counting;
  Product p(24, 40, 8);  // the 8 x 8 blocks leave no spare threads in C
  emu::launch(matmul_rows, dim3(1, 3), dim3(8, 8), 0, 0, p.A, p.B, p.C, p.m, p.n, p.k);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::AccessCounts c = Last();
  EXPECT_EQ(c.global_loads, 2u * 40 * 24 * 8);
  EXPECT_EQ(c.global_load_bytes, 4u * c.global_loads);
  EXPECT_EQ(c.global_stores, 24u * 8);
  EXPECT_EQ(c.global_store_bytes, 4u * 24 * 8);
  EXPECT_EQ(c.shared_loads + c.shared_stores + c.barriers, 0u);
  // Every thread of each warp loads alike: charged per warp, the same.
  EXPECT_EQ(c.warp_global_load_bytes, c.global_load_bytes);
}

// One thread of each block loads the block's whole row for itself: a GPU's profiler counts its
// load instructions once per warp and charges them to every thread of the warp.
__global__ void first_thread_sums_row(const float* in, float* out, int n) {
  if (threadIdx.x != 0) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += in[blockIdx.x * n + i];
  out[blockIdx.x] = sum;
}

TEST(AccessCounts, OneThreadLoadingForItselfIsChargedAsItsWarp) {
  CountingScope counting;
  constexpr int kBlocks = 2, kThreads = 48, kN = 100;  // a full warp and half of one per block
  float* in = to_device(std::vector<float>(kBlocks * kN, 1.0f));
  float* out = to_device(std::vector<float>(kBlocks, 0.0f));
  emu::launch(first_thread_sums_row, dim3(kBlocks), dim3(kThreads), 0, 0, in, out, kN);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, kBlocks)[1], float{kN});
  const emu::AccessCounts c = Last();
  EXPECT_EQ(c.global_load_bytes, 4u * kN * kBlocks);
  // Per block: the first warp's busiest thread loaded 4 * kN bytes, the second's nothing; a warp
  // of a 48-thread block holds 24 threads on average.
  EXPECT_EQ(c.warp_global_load_bytes, 4u * kN * 48 / 2 * kBlocks);
  cudaFree(in);
  cudaFree(out);
}

TEST(AccessCounts, TiledKernelLoadsEachElementOncePerTile) {
  for (unsigned threads : {1u, 3u}) {
    CountingScope counting(threads);
    constexpr int kSize = 32;  // 2 x 2 blocks, 2 tile phases each
    Product p(kSize, kSize, kSize);
    emu::launch(matmul_tiled, dim3(2, 2), dim3(TILE, TILE), 0, 0, p.A, p.B, p.C, p.n, p.k);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const emu::AccessCounts c = Last();
    const uint64_t elements = kSize * kSize, phases = kSize / TILE;
    EXPECT_EQ(c.global_loads, 2 * elements * phases) << threads << " OS threads";
    EXPECT_EQ(c.shared_stores, 2 * elements * phases);
    EXPECT_EQ(c.shared_loads, 2 * elements * kSize);  // a row of A and a column of B per element
    EXPECT_EQ(c.global_stores, elements);
    EXPECT_EQ(c.barriers, 4u * phases * 2);  // 4 blocks, 2 barriers per phase
    EXPECT_EQ(c.static_shared_bytes, 2u * TILE * TILE * sizeof(float));  // a block's, not 4 of them
  }
}

// A shuffle moves a register between lanes: no memory is read, on a GPU or here (the emulator
// passes the values through memory of its own, which is not the kernel's to count).
__global__ void broadcast_lane_zero(const float* in, float* out) {
  const float mine = in[threadIdx.x];
  const float first = __shfl_sync(0xffffffffu, mine, 0);
  const unsigned positive = __ballot_sync(0xffffffffu, mine > 0.0f);
  out[threadIdx.x] = first + static_cast<float>(__popc(positive));
}

TEST(AccessCounts, ShufflesAndBallotsReadNoMemory) {
  CountingScope counting;
  float* in = to_device(std::vector<float>(32, 1.5f));
  float* out = to_device(std::vector<float>(32, 0.0f));
  emu::launch(broadcast_lane_zero, dim3(1), dim3(32), 0, 0, in, out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, 32)[31], 1.5f + 32);
  const emu::AccessCounts c = Last();
  EXPECT_EQ(c.global_load_bytes, 4u * 32);
  EXPECT_EQ(c.global_store_bytes, 4u * 32);
  cudaFree(in);
  cudaFree(out);
}

TEST(AccessCounts, DynamicSharedMemoryAndWideLoads) {
  CountingScope counting;
  constexpr int kBlocks = 3, kThreads = 32;
  float4* in = to_device(std::vector<float4>(kBlocks * kThreads, float4{1, 2, 3, 4}));
  float* out = to_device(std::vector<float>(kBlocks, 0.0f));
  emu::launch(sum_float4, dim3(kBlocks), dim3(kThreads), kThreads * sizeof(float), 0, in, out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, kBlocks)[2], 10.0f * kThreads);
  const emu::AccessCounts c = Last();
  EXPECT_EQ(c.global_load_bytes, 16u * kBlocks * kThreads);
  EXPECT_EQ(c.shared_stores, uint64_t{kBlocks} * kThreads);
  EXPECT_EQ(c.shared_loads, uint64_t{kBlocks} * kThreads);
  EXPECT_EQ(c.global_stores, uint64_t{kBlocks});
  EXPECT_EQ(c.barriers, uint64_t{kBlocks});
  EXPECT_EQ(c.static_shared_bytes, 0u);  // dynamic shared memory is not static
  cudaFree(in);
  cudaFree(out);
}

TEST(AccessCounts, HostCodeAndUncountedLaunchesCountNothing) {
  Product p(8, 8, 8);
  emu::launch(matmul_rows, dim3(1, 1), dim3(8, 8), 0, 0, p.A, p.B, p.C, p.m, p.n, p.k);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(emu::detail::last_launch_access_counts(), nullptr);  // counting is off

  CountingScope counting;
  std::vector<float> host(64, 1.0f);
  volatile float sink = 0;
  for (float v : host) sink = sink + v;  // instrumented host code: not a kernel's access
  // A launch refused before it runs (a block of 2048 threads) counts nothing either.
  emu::launch(matmul_rows, dim3(1, 1), dim3(2048, 1), 0, 0, p.A, p.B, p.C, p.m, p.n, p.k);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  const emu::AccessCounts c = Last();
  EXPECT_EQ(c.global_loads + c.global_stores + c.shared_loads + c.other_accesses, 0u);
}

// Kernel code in a counted block that reads the emulator's counting state (the running block's, in
// the thread-local block) or writes it, as a kernel could by pointer arithmetic from a built-in
// variable (red-team case r3_kernel_rewrites_its_block_counts): the run stops, as a GPU stops at an
// illegal address, naming the access (own_memory.h).
__global__ void reads_counting_state(float* out) {
  const auto* state = reinterpret_cast<const volatile unsigned char*>(emu::detail::counted_block);
  out[threadIdx.x] = state == nullptr ? 0.0f : static_cast<float>(state[0]);
}
__global__ void writes_counting_state(float* out) {
  auto* state = reinterpret_cast<volatile uint64_t*>(emu::detail::counted_block);
  if (state != nullptr) *state = 0;
  out[threadIdx.x] = 1.0f;
}

void run_counted(void (*kernel)(float*)) {
  CountingScope counting;
  float* out = to_device(std::vector<float>(32, 0.0f));
  emu::launch(kernel, dim3(1), dim3(32), 0, 0, out);
  cudaDeviceSynchronize();
}

TEST(AccessCountsDeathTest, AKernelTouchingTheCountingStateStopsTheRun) {
  EXPECT_EXIT(run_counted(reads_counting_state), testing::ExitedWithCode(86),
              "emulator_memory: a read of the CPU backend's own memory at 0x[0-9a-f]+ in kernel");
  EXPECT_EXIT(run_counted(writes_counting_state), testing::ExitedWithCode(86),
              "emulator_memory: a write of the CPU backend's own memory");
}

// The built-in variables lie in the same thread-local block, and a pointer to one is allowed (a GPU
// has no such pointer, but reading one changes nothing); so is the same kernel uncounted.
__global__ void reads_built_ins_through_a_pointer(float* out) {
  const volatile unsigned* index = &threadIdx.x;
  out[threadIdx.x] = static_cast<float>(index[1] + index[0]);  // threadIdx.y + threadIdx.x
}

TEST(AccessCounts, BuiltInVariablesReadThroughAPointerAreNoOwnMemory) {
  float* out = to_device(std::vector<float>(32, 0.0f));
  {
    CountingScope counting;
    emu::launch(reads_built_ins_through_a_pointer, dim3(1), dim3(32), 0, 0, out);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  EXPECT_EQ(to_host(out, 32)[31], 31.0f);
  emu::launch(reads_counting_state, dim3(1), dim3(32), 0, 0, out);  // uncounted: no state to read
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, 32)[0], 0.0f);
}

// Each counted launch's counts are sealed as it ends, a case's from begin_sealed_case on, in
// order; an uncounted launch seals nothing.
TEST(AccessCounts, CountedLaunchesAreSealedInOrderForTheirCase) {
  Product big(8, 8, 8), small(4, 4, 4);
  CountingScope counting;
  emu::detail::begin_sealed_case();
  emu::launch(matmul_rows, dim3(1, 1), dim3(8, 8), 0, 0, big.A, big.B, big.C, 8, 8, 8);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  emu::launch(matmul_rows, dim3(1, 1), dim3(4, 4), 0, 0, small.A, small.B, small.C, 4, 4, 4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<emu::AccessCounts> sealed = emu::detail::sealed_counts_of_case();
  ASSERT_EQ(sealed.size(), 2u);
  EXPECT_EQ(sealed[0].global_loads, 2u * 8 * 64);
  EXPECT_EQ(sealed[1].global_loads, 2u * 4 * 16);
  EXPECT_EQ(sealed[1].global_loads, Last().global_loads);

  emu::detail::begin_sealed_case();
  emu::detail::ConfigWrite()->count_accesses = false;
  emu::launch(matmul_rows, dim3(1, 1), dim3(4, 4), 0, 0, small.A, small.B, small.C, 4, 4, 4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(emu::detail::sealed_counts_of_case().empty());
}

// The store is read-only to everything but the emulator's own appends: a kernel (or anyone else)
// that writes where a sealed count lies faults.
TEST(AccessCountsDeathTest, TheSealedCountsCannotBeWritten) {
  Product p(4, 4, 4);
  CountingScope counting;
  emu::detail::begin_sealed_case();
  emu::launch(matmul_rows, dim3(1, 1), dim3(4, 4), 0, 0, p.A, p.B, p.C, 4, 4, 4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  size_t count = 0;
  const auto* entry = static_cast<const emu::AccessCounts*>(
      emu::detail::sealed_items(emu::detail::SealedTable::kLaunchCounts, count));
  ASSERT_FALSE(emu::detail::sealed_counts_of_case().empty());
  EXPECT_DEATH(const_cast<volatile emu::AccessCounts*>(entry)->global_loads = 0, "");
}

// The tables a count is classed by are sealed too: a write to the __constant__ ranges (which a
// kernel of an uncounted launch once widened to the whole address space, turning the own-memory
// check off: r3_uncounted_launch_turns_off_own_memory_check) faults.
TEST(AccessCountsDeathTest, TheTablesACountIsMadeFromCannotBeWritten) {
  static float table[4];
  emu::detail::count_as_constant_memory(table, sizeof table);
  EXPECT_TRUE(emu::detail::counts_as_constant_memory(&table[2]));
  size_t count = 0;
  const void* ranges =
      emu::detail::sealed_items(emu::detail::SealedTable::kConstantVariables, count);
  ASSERT_GT(count, 0u);
  using Range = std::pair<uintptr_t, uintptr_t>;
  EXPECT_DEATH(const_cast<volatile Range*>(static_cast<const Range*>(ranges))->second = ~0ull, "");
}

// A counted launch whose counter heard from fewer blocks than it ran (kernel code changed what
// tells the scheduler a block is counted: r3_counted_block_switches_off_later_blocks) ends the run.
TEST(AccessCountsDeathTest, UncountedBlocksOfACountedLaunchEndTheRun) {
  const emu::detail::LaunchCounter counter(nullptr, 0, "k");
  EXPECT_EXIT(emu::detail::report_uncounted_blocks(counter, 4), testing::ExitedWithCode(86),
              "counting_incomplete: kernel k ran 4 of its 4 blocks uncounted");
}

// The rows algorithm with every load made by the counting memcpy, as a kernel's memcpy of a
// student's object is after labgrade renames it (grader/build/device_call_guard.h).
__global__ void matmul_rows_by_copies(const float* A, const float* B, float* C, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    float a, b;
    __emu_device_memcpy(&a, &A[row * n + i], sizeof a);
    __emu_device_memmove(&b, &B[i * k + col], sizeof b);
    sum += a * b;
  }
  __emu_device_memset(&C[row * k + col], 0, sizeof(float));
  C[row * k + col] = sum;
}

TEST(AccessCounts, TheCountingCopiesCountWhatTheyReadAndWrite) {
  CountingScope counting;
  Product p(8, 12, 8);
  emu::launch(matmul_rows_by_copies, dim3(1, 1), dim3(8, 8), 0, 0, p.A, p.B, p.C, p.n, p.k);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(p.C, 64)[63], 2.0f * 12);
  const emu::AccessCounts c = Last();
  // Each copy: n bytes read where they come from, written where they go (the locals: "other").
  EXPECT_EQ(c.global_load_bytes, 4u * 2 * 12 * 64);
  EXPECT_EQ(c.global_store_bytes, 4u * 2 * 64);  // memset, then the store
  EXPECT_GE(c.other_accesses, 2u * 12 * 64);
}

// Host memory, which no GPU kernel can read (a buffer a static initialiser allocated, say), counts
// as global memory: operands kept there are not loads the technique check misses. The CUDA
// thread's own stack and the kernel's parameters stay uncounted.
const float* g_host_values = nullptr;

__global__ void sum_host_values(float* out, int n) {
  float local[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) local[i % 4] += g_host_values[i];
  out[threadIdx.x] = local[0] + local[1] + local[2] + local[3];
}

TEST(AccessCounts, HostMemoryAKernelReadsCountsAsGlobalMemory) {
  CountingScope counting;
  const std::vector<float> host(16, 1.0f);
  g_host_values = host.data();
  float* out = to_device(std::vector<float>(4, 0.0f));
  emu::launch(sum_host_values, dim3(1), dim3(4), 0, 0, out, 16);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, 4)[3], 16.0f);
  const emu::AccessCounts c = Last();
  // 16 floats of the host's per thread, and perhaps the pointer to them (a global of the
  // program's); nothing of the parameters or of `local`.
  EXPECT_GE(c.global_loads, 4u * 16);
  EXPECT_LE(c.global_loads, 4u * 17);
  EXPECT_EQ(c.global_stores, 4u);
  cudaFree(out);
}

// A __constant__ table read in a kernel's loop: a GPU's counters do not count constant loads, so
// neither does the CPU backend where the harness names the table (count_as_constant_memory).
float g_coefficients[8] = {1, 1, 1, 1, 1, 1, 1, 1};

__global__ void sum_coefficients(float* out, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += g_coefficients[i % 8];
  out[threadIdx.x] = s;
}

TEST(AccessCounts, ConstantMemoryIsLeftOutOfTheCounts) {
  CountingScope counting;
  float* out = to_device(std::vector<float>(4, 0.0f));
  emu::launch(sum_coefficients, dim3(1), dim3(4), 0, 0, out, 16);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(Last().global_loads, 4u * 16) << "host memory, before it is named";
  emu::detail::count_as_constant_memory(g_coefficients, sizeof g_coefficients);
  emu::launch(sum_coefficients, dim3(1), dim3(4), 0, 0, out, 16);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(out, 4)[0], 16.0f);
  EXPECT_EQ(Last().global_loads, 0u);
  EXPECT_EQ(Last().global_stores, 4u);
  cudaFree(out);
}

}  // namespace
}  // namespace emu_test
