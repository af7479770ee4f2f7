// The student's data watched during counted launches (src/execution/watched_data.h): accesses the
// compiler leaves uninstrumented, to a named variable at offsets it knows, are counted all the
// same. Compiled with the counting flags (tests/CMakeLists.txt), as labgrade compiles a
// submission.
#include <vector>

#include "counting_util.h"
#include "test_util.h"

namespace emu_test {
namespace {

// Pages of their own, as labgrade's link gives the student's data (StudentDataScript).
struct alignas(4096) Pages {
  float values[2048];
  double doubles[256];
  int ints[256];
  short shorts[512];
  signed char chars[1024];
};
static_assert(sizeof(Pages) == 16384);
Pages g_pages;

// A row of values copied whole (g++ copies it with `rep movsq`) and single floats at offsets the
// compiler knows: none of these reads is instrumented.
struct Row {
  float v[216];
};

__global__ void read_at_known_offsets(float* out) {
  const Row row = *reinterpret_cast<const Row*>(&g_pages.values[1024]);
  float sum = g_pages.values[3] + g_pages.values[1500];
  for (int i = 0; i < 216; ++i) sum += row.v[i];
  out[threadIdx.x] = sum;
}

class WatchedData : public ::testing::Test {
 protected:
  void SetUp() override {
    for (float& v : g_pages.values) v = 1.0f;
    out_ = to_device(std::vector<float>(kThreads, 0.0f));
  }
  void TearDown() override {
    emu::detail::watch_during_counted_launches(nullptr, 0);
    cudaFree(out_);
  }
  void Launch() {
    emu::launch(read_at_known_offsets, dim3(1), dim3(kThreads), 0, 0, out_);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(to_host(out_, kThreads)[kThreads - 1], 218.0f);
  }
  static constexpr unsigned kThreads = 8;
  float* out_ = nullptr;
};

TEST_F(WatchedData, ReadsAtKnownOffsetsEscapeTheInstrumentation) {
  CountingScope counting;
  Launch();
  EXPECT_EQ(Last().global_load_bytes, 0u) << "g++ instruments these reads now: watching is moot";
}

TEST_F(WatchedData, EveryReadOfTheWatchedPagesIsCounted) {
  CountingScope counting(/*threads=*/4);
  emu::detail::count_as_global_memory(&g_pages, sizeof g_pages);
  emu::detail::watch_during_counted_launches(&g_pages, sizeof g_pages);
  Launch();
  const emu::AccessCounts c = Last();
  // Per thread: the row (one copy instruction, counted whole) and two floats.
  EXPECT_EQ(c.global_load_bytes, kThreads * (216u * 4 + 2 * 4));
  EXPECT_EQ(c.global_loads, kThreads * 3u);
  EXPECT_EQ(c.global_stores, kThreads);
  // Open again after the launch, for the host and for launches that do not count.
  g_pages.values[5] = 2.0f;
  EXPECT_EQ(g_pages.values[5], 2.0f);
}

// Stores are counted too, and the values land: a kernel that fills the watched pages.
__global__ void write_at_known_offsets() {
  g_pages.values[7] = 3.0f;
  *reinterpret_cast<Row*>(&g_pages.values[512]) = Row{};
}

TEST_F(WatchedData, StoresToTheWatchedPagesAreCountedAndLand) {
  CountingScope counting;
  emu::detail::watch_during_counted_launches(&g_pages, sizeof g_pages);
  emu::launch(write_at_known_offsets, dim3(1), dim3(1), 0, 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(g_pages.values[7], 3.0f);
  EXPECT_EQ(g_pages.values[600], 0.0f);
  EXPECT_EQ(Last().global_store_bytes, 4u + 216 * 4);
}

// Values a watched block's instructions read and combine at offsets the compiler knows: whether
// the handler carries an instruction out (emulated_access.h) or steps it, the results are the
// instruction's own.
struct Mixed {
  float sum, product, quotient, difference;
  double twice;
  long long widened;
};

__device__ __host__ Mixed combine(float x, double y) {
  Mixed r;
  r.sum = g_pages.values[3] + x;
  r.product = g_pages.values[9] * x;
  r.quotient = x / g_pages.values[11];
  r.difference = g_pages.values[13] - x;
  r.twice = g_pages.doubles[2] * y + g_pages.doubles[7];
  r.widened = g_pages.ints[5] + g_pages.shorts[6] + g_pages.chars[7];
  return r;
}

__global__ void combine_kernel(Mixed* out, float x, double y) { *out = combine(x, y); }

TEST_F(WatchedData, CarriedOutInstructionsGiveTheInstructionsResults) {
  for (int i = 0; i < 16; ++i) g_pages.values[i] = 1.1f * static_cast<float>(i) + 0.37f;
  g_pages.doubles[2] = 3.3;
  g_pages.doubles[7] = -0.125;
  g_pages.ints[5] = -70000;
  g_pages.shorts[6] = -300;
  g_pages.chars[7] = -5;
  const Mixed expected = combine(0.7f, 1.9);
  CountingScope counting;
  emu::detail::watch_during_counted_launches(&g_pages, sizeof g_pages);
  Mixed* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(Mixed)), cudaSuccess);
  emu::launch(combine_kernel, dim3(1), dim3(1), 0, 0, out, 0.7f, 1.9);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Mixed got;
  ASSERT_EQ(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got.sum, expected.sum);
  EXPECT_EQ(got.product, expected.product);
  EXPECT_EQ(got.quotient, expected.quotient);
  EXPECT_EQ(got.difference, expected.difference);
  EXPECT_EQ(got.twice, expected.twice);
  EXPECT_EQ(got.widened, expected.widened);
  EXPECT_EQ(Last().global_load_bytes, 4u * 4 + 8 * 2 + 4 + 2 + 1);
  cudaFree(out);
}

}  // namespace
}  // namespace emu_test
