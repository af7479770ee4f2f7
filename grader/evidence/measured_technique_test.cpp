#include "measured_technique.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

constexpr Shape kShape{64, 64, 64};
constexpr long long kElements = 64 * 64;

MeasuredTechnique TiledRule() {
  MeasuredTechnique rule;
  rule.shape = kShape;
  rule.max_global_loads_vs_rows = 0.5;
  rule.min_shared_loads_vs_rows = 1.0 / 64;
  rule.reads_shared = true;
  rule.executes_barrier = true;
  return rule;
}

// A launch of `kernel` that loaded `loads_per_element` floats from global memory per element of C
// and stored C once.
LaunchInfo Launch(const std::string& kernel, long long loads_per_element, long long shared_loads,
                  long long barriers) {
  LaunchInfo l;
  l.kernel = kernel;
  MemoryAccesses& a = l.accesses.emplace();
  a.global_load_bytes = 4 * loads_per_element * kElements;
  a.global_store_bytes = 4 * kElements;
  a.shared_loads = shared_loads;
  a.shared_stores = shared_loads > 0 ? 2 * kElements : 0;
  a.barriers = barriers;
  return l;
}

const char kRows[] = "_Z18matmul_rows_kernelPKfS0_Pfiii";
const char kTiled[] = "_Z23matmul_tiled_any_kernelPKfS0_Pfiii";

TEST(MeasuredTechnique, TilesOfTwoOrMorePass) {
  for (long long tile : {2, 3, 4, 8, 16, 32, 64}) {
    const long long loads = 2 * 64 / tile + (64 % tile != 0 ? 2 : 0);  // partial tiles load less
    EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {Launch(kTiled, loads, 2 * 64 * kElements, 8)}),
              "")
        << "tile " << tile;
  }
}

// Where no side is a multiple of the tile, the partial tiles at the edges cost whole tiles' loads:
// tiles of 2 then load a little more than half the rows kernel's 2n (seen on an H100 with seed 11).
TEST(MeasuredTechnique, TilesOfTwoPassWhereTheSidesAreOdd) {
  MeasuredTechnique rule = TiledRule();
  rule.shape = {201, 198, 180};
  const long long m = 201, n = 198, k = 180, elements = m * k;
  const auto launch = [&](long long loads) {
    LaunchInfo l;
    l.kernel = kTiled;
    MemoryAccesses& a = l.accesses.emplace();
    a.global_load_bytes = 4 * loads;
    a.global_store_bytes = 4 * elements;
    a.shared_loads = 2 * n * elements;
    a.barriers = 8;
    return l;
  };
  // Each block column loads A's strip once, each block row B's: loads of A and B guarded.
  const long long guarded = (k + 1) / 2 * m * n + (m + 1) / 2 * n * k;
  EXPECT_EQ(CheckMeasuredTechnique(rule, {launch(guarded)}), "");
  // Unguarded loads (zero rows and columns clamped in place) load every tile whole: the most a
  // kernel with tiles of 2 can load, and still a pass.
  EXPECT_EQ(CheckMeasuredTechnique(rule, {launch(8 * ((m + 1) / 2) * ((k + 1) / 2) * (n / 2))}),
            "");
  // Tiles of A in shared memory but B read from global memory: n + n / 16 per element, a fail.
  const std::string half =
      CheckMeasuredTechnique(rule, {launch((k + 15) / 16 * m * n + m * n * k)});
  EXPECT_NE(half.find("loaded 211.2 floats from global memory per element of C"), std::string::npos)
      << half;
  EXPECT_NE(half.find("At most 199.0 passes"), std::string::npos) << half;
}

TEST(MeasuredTechnique, RowsKernelFailsWithTheMeasuredFigures) {
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {Launch(kRows, 128, 0, 0)}),
            "in the 64 x 64 x 64 product (m x n x k), matmul_rows_kernel loaded 128.0 floats from "
            "global memory per element of C. The rows kernel loads 128.0 (2n: a row of A and a "
            "column of B); a tiled kernel loads each element of A and B into shared memory once "
            "per tile and then reads it there TILE times, so it loads 2n / TILE (8.0 with 16 x 16 "
            "tiles). At most 64.0 passes. Stage tiles of A and B in __shared__ memory and compute "
            "from those");
}

// One thread that loads operands for itself and keeps them (r2_one_thread_keeps_operands_local):
// few loads summed over threads, but a GPU's profiler charges each of its warp's load instructions
// to all 32 threads, and the CPU backend's per-warp count (warp_global_load_bytes) does the same.
TEST(MeasuredTechnique, LoadsAreChargedPerWarpWhereThatIsMore) {
  LaunchInfo l = Launch(kTiled, 4, 2 * 64 * kElements, 8);
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {l}), "");
  l.accesses->warp_global_load_bytes = 32 * l.accesses->global_load_bytes;  // 128 per element
  const std::string charged = CheckMeasuredTechnique(TiledRule(), {l});
  EXPECT_NE(charged.find("loaded 128.0 floats from global memory per element of C"),
            std::string::npos)
      << charged;
  // A per-warp count below the sum (a block whose last warp is partly empty) charges the sum.
  l.accesses->warp_global_load_bytes = l.accesses->global_load_bytes / 2;
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {l}), "");
}

TEST(MeasuredTechnique, DecoyBesideTheRowsKernelFails) {
  // The decoy declares tiles and waits at a barrier, but stores and loads nothing global.
  LaunchInfo decoy = Launch("_Z5decoyPf", 0, 4 * kElements, 8);
  decoy.accesses->global_store_bytes = 0;
  const std::string failure =
      CheckMeasuredTechnique(TiledRule(), {decoy, Launch(kRows, 128, 0, 0)});
  EXPECT_NE(failure.find("your kernels loaded 128.0 floats from global memory per element of C "
                         "(decoy: 0.0, matmul_rows_kernel: 128.0)"),
            std::string::npos)
      << failure;
}

TEST(MeasuredTechnique, SharedMemoryMustBeReadAndABarrierPassed) {
  LaunchInfo unread = Launch(kTiled, 8, 0, 8);
  unread.accesses->shared_stores = 2 * kElements;  // tiles filled, never read
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {unread}),
            "in the 64 x 64 x 64 product (m x n x k), matmul_tiled_any_kernel never read shared "
            "memory (8192 values were stored there): the partial sums must be computed from the "
            "tiles in __shared__ memory");
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {Launch(kTiled, 8, 2 * 64 * kElements, 0)}),
            "in the 64 x 64 x 64 product (m x n x k), matmul_tiled_any_kernel passed no "
            "__syncthreads(): the threads of a block must wait after filling the tiles and again "
            "before overwriting them");
}

// Register blocking with shared memory for show: a quarter of the rows kernel's global loads, kept
// in registers, and one read of shared memory per block. A real register-blocked or vectorised
// kernel reads its tiles at least 2n / 64 times per element of C (here 2).
TEST(MeasuredTechnique, SharedMemoryReadForShowFails) {
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {Launch(kTiled, 32, 16, 8)}),
            "in the 64 x 64 x 64 product (m x n x k), matmul_tiled_any_kernel read shared memory "
            "0.0 times per element of C. A tiled kernel computes each element from the tiles: "
            "128.0 reads there (2n: a row of the A tile and a column of the B tile, phase after "
            "phase), fewer with register blocking or vector loads, but at least 2.0. Compute the "
            "partial sums from the tiles in __shared__ memory, not from values kept in registers");
  // 8 x 8 register blocks with 4-wide loads: 2n / 32 per element.
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), {Launch(kTiled, 8, 4 * kElements, 8)}), "");
  EXPECT_NE(CheckMeasuredTechnique(TiledRule(), {Launch(kTiled, 8, kElements, 8)}), "");
}

TEST(MeasuredTechnique, HiddenAccessesAreNotBelieved) {
  // A kernel whose accesses the counting build did not see (no_sanitize) beside one that did.
  LaunchInfo hidden = Launch(kRows, 0, 0, 0);
  hidden.accesses->global_store_bytes = 0;
  const std::string failure =
      CheckMeasuredTechnique(TiledRule(), {hidden, Launch(kTiled, 0, 64, 1)});
  EXPECT_NE(failure.find("some of its memory accesses were hidden from the grader's count"),
            std::string::npos)
      << failure;
}

// Constant memory refilled from device memory between launches tiles through it, its reads
// uncounted: refused whatever the counts. Values the host sets there (lab 04's block side), and
// device-to-device copies between buffers, whose data kernels then load as global memory, are not.
TEST(MeasuredTechnique, DeviceMemoryCopiedIntoConstantMemoryFails) {
  const std::vector<LaunchInfo> tiled = {Launch(kTiled, 8, 2 * 64 * kElements, 8)};
  const std::vector<TransferInfo> refills = {
      {"cudaMemcpyToSymbol", transfer_kind::kDeviceToConstant, 23680},
      {"cudaMemcpyToSymbol", transfer_kind::kDeviceToConstant, 23680}};
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), tiled, refills),
            "in the 64 x 64 x 64 product (m x n x k), the function copied 47360 bytes of device "
            "memory into __constant__ memory (2 cudaMemcpyToSymbol calls, device to device). A "
            "kernel reads such values as constant loads, which the grader cannot count as reads of "
            "A and B. Keep __constant__ memory for values the host sets (a tile size, "
            "coefficients) and stage the tiles of A and B in __shared__ memory inside your kernel");
  const std::vector<TransferInfo> allowed = {
      {"cudaMemcpyToSymbol", transfer_kind::kHostToDevice, 4},
      {"cudaMemcpy", transfer_kind::kDeviceToDevice, 16384}};
  EXPECT_EQ(CheckMeasuredTechnique(TiledRule(), tiled, allowed), "");
}

TEST(MeasuredTechnique, TooManyLaunchesOrNoCountsCannotBeJudged) {
  const std::vector<LaunchInfo> many(kLaunchesListed, Launch(kTiled, 1, 64, 1));
  EXPECT_NE(CheckMeasuredTechnique(TiledRule(), many).find("launched 64 or more kernels"),
            std::string::npos);
  LaunchInfo uncounted;
  uncounted.kernel = kTiled;
  EXPECT_NE(CheckMeasuredTechnique(TiledRule(), {uncounted}).find("a fault of the grader"),
            std::string::npos);
}

}  // namespace
}  // namespace labkit
