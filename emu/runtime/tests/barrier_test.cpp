// Barriers: every thread order gives the right answer for correct kernels, planted missing
// barriers give answers that depend on the order, and divergent barriers are reported instead of
// hanging.
#include <cmath>
#include <map>

#include "kernels.h"
#include "test_util.h"

namespace emu_test {
namespace {

// Small integers: every product and sum is exact in float, so results compare bit for bit.
std::vector<float> small_ints(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 7 + seed) % 9) - 4);
  return v;
}

std::vector<float> reference_matmul(const std::vector<float>& A, const std::vector<float>& B, int m,
                                    int n, int k) {
  std::vector<float> C(static_cast<size_t>(m) * k, 0.0f);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c)
      for (int i = 0; i < n; ++i) C[r * k + c] += A[r * n + i] * B[i * k + c];
  return C;
}

template <class Kernel>
std::vector<float> run_matmul(Kernel kernel, const std::vector<float>& A,
                              const std::vector<float>& B, int m, int n, int k) {
  float* dA = to_device(A);
  float* dB = to_device(B);
  float* dC = nullptr;
  EXPECT_EQ(cudaMalloc(&dC, sizeof(float) * m * k), cudaSuccess);
  emu::launch(kernel, dim3(k / TILE, m / TILE), dim3(TILE, TILE), 0, 0, dA, dB, dC, m, n, k);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> C = to_host(dC, static_cast<size_t>(m) * k);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return C;
}

// The matrices as bytes, so that NaN results compare equal to themselves across orders.
std::string bits(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

constexpr int M = 48, N = 64, K = 32;

class MatmulOrder : public testing::TestWithParam<const char*> {};

TEST_P(MatmulOrder, TiledMatmulIsExactInEveryOrder) {
  OrderScope order(GetParam());
  const auto A = small_ints(M * N, 1), B = small_ints(N * K, 5);
  EXPECT_EQ(run_matmul(matmul_tiled<true, true>, A, B, M, N, K), reference_matmul(A, B, M, N, K));
}

INSTANTIATE_TEST_SUITE_P(AllOrders, MatmulOrder, testing::ValuesIn(all_orders()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(c) ? c : '_';
                           return name;
                         });

// Runs a planted bug in every order; returns the distinct results (as bytes) and whether any
// order produced the correct one.
template <class Run>
std::map<std::string, std::vector<const char*>> results_by_order(Run run) {
  std::map<std::string, std::vector<const char*>> results;
  for (const char* o : all_orders()) {
    OrderScope order(o);
    results[bits(run())].push_back(o);
  }
  return results;
}

TEST(PlantedBugs, MissingFirstBarrierInMatmulDependsOnOrder) {
  const auto A = small_ints(M * N, 1), B = small_ints(N * K, 5);
  const auto results =
      results_by_order([&] { return run_matmul(matmul_tiled<false, true>, A, B, M, N, K); });
  EXPECT_GT(results.size(), 1u) << "the orders should disagree";
  EXPECT_EQ(results.count(bits(reference_matmul(A, B, M, N, K))), 0u);
}

TEST(PlantedBugs, MissingSecondBarrierInMatmulDependsOnOrder) {
  const auto A = small_ints(M * N, 1), B = small_ints(N * K, 5);
  const auto results =
      results_by_order([&] { return run_matmul(matmul_tiled<true, false>, A, B, M, N, K); });
  EXPECT_GT(results.size(), 1u) << "the orders should disagree";
  EXPECT_EQ(results.count(bits(reference_matmul(A, B, M, N, K))), 0u);
}

template <class Kernel>
std::vector<float> run_reduce(Kernel kernel, const std::vector<float>& in) {
  const int blocks = static_cast<int>(in.size()) / REDUCE_THREADS;
  float* d_in = to_device(in);
  float* d_out = nullptr;
  EXPECT_EQ(cudaMalloc(&d_out, blocks * sizeof(float)), cudaSuccess);
  emu::launch(kernel, blocks, REDUCE_THREADS, 0, 0, d_in, d_out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  auto out = to_host(d_out, blocks);
  cudaFree(d_in);
  cudaFree(d_out);
  return out;
}

TEST(PlantedBugs, MissingBarrierInReductionIsHiddenByOneOrder) {
  const auto in = small_ints(4 * REDUCE_THREADS, 3);
  std::vector<float> expected(4, 0.0f);
  for (size_t i = 0; i < in.size(); ++i) expected[i / REDUCE_THREADS] += in[i];

  for (const char* o : all_orders()) {
    OrderScope order(o);
    EXPECT_EQ(run_reduce(reduce_sum<true>, in), expected) << o;
  }
  const auto results = results_by_order([&] { return run_reduce(reduce_sum<false>, in); });
  EXPECT_GT(results.size(), 1u) << "the orders should disagree";
  // In reverse order each thread runs after every thread it reads from has finished, which is
  // exactly what the missing barriers should have guaranteed: a single order can hide the bug.
  ASSERT_EQ(results.count(bits(expected)), 1u);
  EXPECT_EQ(results.at(bits(expected)), std::vector<const char*>{"reverse"});
}

__global__ void count_and_vote(const int* flags, int* out) {
  const int f = flags[threadIdx.x];
  const int count = __syncthreads_count(f);
  const int all = __syncthreads_and(f);
  const int any = __syncthreads_or(f);
  if (threadIdx.x == 5) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
  }
}

TEST(Barriers, CountAndOrVariants) {
  std::vector<int> flags(96, 0);
  for (int i = 0; i < 96; i += 3) flags[i] = 7;
  int* d_flags = to_device(flags);
  int* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, 3 * sizeof(int)), cudaSuccess);
  for (const char* o : all_orders()) {
    OrderScope order(o);
    emu::launch(count_and_vote, 1, 96, 0, 0, d_flags, d_out);
    EXPECT_EQ(to_host(d_out, 3), (std::vector<int>{32, 0, 1})) << o;
  }
  cudaFree(d_flags);
  cudaFree(d_out);
}

// Warp-synchronous tail of a reduction: correct on a GPU thanks to __syncwarp, and correct here
// in every order because __syncwarp is a barrier among the warp's threads.
__global__ void warp_sum(const int* in, int* out) {
  auto& s = emu::block_shared<int[64], 103>();
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32];
    __syncwarp();
    for (int stride = 16; stride > 0; stride /= 2) {
      const int v = t < stride ? s[t + stride] : 0;
      __syncwarp();
      s[t] += v;
      __syncwarp();
    }
  }
  if (t == 0) out[0] = s[0];
}

TEST(Barriers, SyncwarpOrdersAWarp) {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = i + 1;
  int* d_in = to_device(in);
  int* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, sizeof(int)), cudaSuccess);
  for (const char* o : all_orders()) {
    OrderScope order(o);
    emu::launch(warp_sum, 1, 64, 0, 0, d_in, d_out);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << o;
    EXPECT_EQ(to_host(d_out, 1)[0], 64 * 65 / 2) << o;
  }
  cudaFree(d_in);
  cudaFree(d_out);
}

// Half a warp syncs and shuffles among itself (its mask) inside a branch while the other half
// already waits at the __syncthreads every thread reaches: legal since Volta, and no divergence.
__global__ void half_warp_syncs_beside_a_block_barrier(int* out) {
  auto& s = emu::block_shared<int[32], 120>();
  const int t = static_cast<int>(threadIdx.x);
  int v = -1;
  if (t < 16) {
    s[t] = t;
    __syncwarp(0x0000ffffu);
    v = s[15 - t] + __shfl_sync(0x0000ffffu, 100 * t, 1, 16);
  }
  __syncthreads();
  out[t] = v;
}

TEST(Barriers, AHalfWarpSyncsOnItsOwnMask) {
  int* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, 32 * sizeof(int)), cudaSuccess);
  for (const char* o : all_orders()) {
    OrderScope order(o);
    emu::launch(half_warp_syncs_beside_a_block_barrier, 1, 32, 0, 0, d_out);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << o;
    const std::vector<int> out = to_host(d_out, 32);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t < 16 ? 15 - t + 100 : -1) << o << ", " << t;
  }
  cudaFree(d_out);
}

__global__ void barrier_after_early_return(float* data) {
  if (threadIdx.x >= 16) return;
  data[threadIdx.x] = 1;
  __syncthreads();
}

__global__ void barriers_on_two_lines(float* data) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  data[threadIdx.x] = 2;
}

TEST(Barriers, EarlyReturnBeforeBarrierIsReportedNotHung) {
  for (const char* o : all_orders()) {
    OrderScope order(o);
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 64 * sizeof(float)), cudaSuccess);
    const size_t mark = report_size();
    emu::launch(barrier_after_early_return, 2, 64, 0, 0, d);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure) << o;
    EXPECT_EQ(cudaMalloc(&d, 4), cudaErrorLaunchFailure) << "the error is sticky";
    const std::string report = report_since(mark);
    EXPECT_NE(report.find("\"kind\": \"divergent_barrier\""), std::string::npos) << report;
    EXPECT_NE(report.find("threads 0-15 wait at the barrier at "), std::string::npos) << report;
    EXPECT_NE(report.find("while threads 16-63 have returned"), std::string::npos) << report;
    EXPECT_NE(report.find("barrier_test.cpp:"), std::string::npos) << report;
    reset_device();
  }
}

TEST(Barriers, BarriersOnDifferentLinesAreReported) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64 * sizeof(float)), cudaSuccess);
  const size_t mark = report_size();
  emu::launch(barriers_on_two_lines, 1, 64, 0, 0, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("divergent_barrier"), std::string::npos) << report;
  EXPECT_NE(report.find("threads 0, 2, 4, 6, 8, 10, 12, 14, ..."), std::string::npos) << report;
  EXPECT_NE(report.find("\"lines\": [\""), std::string::npos) << report;
  reset_device();
}
}  // namespace
}  // namespace emu_test

namespace emu_test {
// A warp-shuffle reduction and a ballot, in every order; the last warp is partial (40 threads).
__global__ void shuffle_reduce(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const unsigned even = __ballot_sync(0xffffffffu, in[threadIdx.x] % 2 == 0);
  const int first = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);
  const int swapped = __shfl_xor_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
  if (threadIdx.x % 32 == 0) {
    out[threadIdx.x / 32 * 4] = v;
    out[threadIdx.x / 32 * 4 + 1] = static_cast<int>(even);
  }
  if (threadIdx.x == 33) {
    out[2] = first;
    out[3] = swapped;
  }
}

TEST(WarpPrimitives, ShuffleAndBallotInEveryOrder) {
  std::vector<int> in(40);
  for (int i = 0; i < 40; ++i) in[i] = i;
  int* d_in = to_device(in);
  int* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, 8 * sizeof(int)), cudaSuccess);
  for (const char* o : all_orders()) {
    OrderScope order(o);
    emu::launch(shuffle_reduce, 1, 40, 0, 0, d_in, d_out);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << o;
    const auto out = to_host(d_out, 8);
    // (The second warp's sum is undefined in CUDA: it reads lanes 8-31, which do not exist.)
    EXPECT_EQ(out[0], 31 * 32 / 2) << o;
    EXPECT_EQ(static_cast<unsigned>(out[1]), 0x55555555u) << o;
    EXPECT_EQ(static_cast<unsigned>(out[5]), 0x55u) << o;
    EXPECT_EQ(out[2], 32) << o;
    EXPECT_EQ(out[3], 32) << o;
  }
  cudaFree(d_in);
  cudaFree(d_out);
}
}  // namespace emu_test
