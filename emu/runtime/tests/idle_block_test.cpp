// Blocks whose threads all return before any barrier (the extra blocks of a grid sized far beyond
// the matrix) beside blocks that work: right results and indices in every order. What an idle
// block costs beside a working one (scheduler.h's fast path) is emu_bench's to print: a time,
// not a unit test's to assert.
#include <vector>

#include "kernels.h"
#include "test_util.h"

namespace emu_test {
namespace {

constexpr int kN = 64;  // four tiles: eight barriers per working thread

struct Strips {
  std::vector<float> a = std::vector<float>(TILE * kN), b = std::vector<float>(kN * TILE);
  float *A = nullptr, *B = nullptr, *C = nullptr;
  explicit Strips(unsigned blocks) {
    // Small integers: every sum is exact, so the product is compared bit for bit.
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2;
    A = to_device(a);
    B = to_device(b);
    EXPECT_EQ(cudaMalloc(&C, blocks * TILE * TILE * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemset(C, 0, blocks * TILE * TILE * sizeof(float)), cudaSuccess);
  }
  ~Strips() {
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }
  float expected(int row, int col) const {
    float sum = 0;
    for (int i = 0; i < kN; ++i) sum += a[row * kN + i] * b[i * TILE + col];
    return sum;
  }
};

TEST(IdleBlocks, WorkingBlocksAmongIdleOnesAreRightInEveryOrder) {
  constexpr unsigned kBlocks = 40, kWorking = 3;
  for (const char* order : all_orders()) {
    OrderScope scope(order);
    Strips s(kBlocks);
    emu::launch(strips_or_idle, dim3(kBlocks), dim3(TILE, TILE), 0, 0, s.A, s.B, s.C, kN,
                kWorking);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << order;
    const std::vector<float> c = to_host(s.C, kBlocks * TILE * TILE);
    for (unsigned block = 0; block < kBlocks; ++block)
      for (int row = 0; row < TILE; ++row)
        for (int col = 0; col < TILE; ++col) {
          const float want = block < kWorking ? s.expected(row, col) : 0.0f;
          ASSERT_EQ(c[(block * TILE + row) * TILE + col], want)
              << order << ", block " << block << ", row " << row << ", column " << col;
        }
  }
}

__global__ void write_thread_index(uint3* out) {
  out[(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x] = threadIdx;
}

// The scheduler keeps each block shape's thread indices from launch to launch: a new shape must
// get its own.
TEST(IdleBlocks, ThreadIndicesFollowTheBlockShapeFromLaunchToLaunch) {
  uint3* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64 * sizeof(uint3)), cudaSuccess);
  for (const dim3 block : {dim3(4, 4, 1), dim3(2, 4, 8), dim3(64, 1, 1), dim3(4, 4, 1)}) {
    emu::launch(write_thread_index, dim3(1), block, 0, 0, d);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<uint3> out = to_host(d, 64);
    unsigned i = 0;
    for (unsigned z = 0; z < block.z; ++z)
      for (unsigned y = 0; y < block.y; ++y)
        for (unsigned x = 0; x < block.x; ++x, ++i) {
          EXPECT_EQ(out[i].x, x) << block.x << "x" << block.y << "x" << block.z;
          EXPECT_EQ(out[i].y, y) << block.x << "x" << block.y << "x" << block.z;
          EXPECT_EQ(out[i].z, z) << block.x << "x" << block.y << "x" << block.z;
        }
  }
  cudaFree(d);
}

}  // namespace
}  // namespace emu_test
