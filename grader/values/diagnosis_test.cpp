#include "diagnosis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "product_case_test_util.h"

namespace labkit {
namespace {

const float kPoison = FloatFromBits(kPoisonBits);

using Case = ProductCase;

TEST(Diagnosis, FormatNumber) {
  EXPECT_EQ(FormatNumber(12.5), "12.5");
  EXPECT_EQ(FormatNumber(0.0), "0.0");
  EXPECT_EQ(FormatNumber(-3.0), "-3.0");
  EXPECT_EQ(FormatNumber(0.1f), "0.1");
  EXPECT_EQ(FormatNumber(1e-8f), "1e-08");
  EXPECT_EQ(FormatNumber(0.123456789), "0.12345679");
  EXPECT_EQ(FormatNumber(std::nan("")), "NaN");
  EXPECT_EQ(FormatNumber(-INFINITY), "-Inf");
}

TEST(Diagnosis, DescribeMismatch) {
  Mismatch m{17, 3, 12.5, 0.0f, 2.5e-6, ElementState::kWrong, 0};
  EXPECT_EQ(DescribeMismatch(m, ToleranceModel::kForwardError),
            "expected 12.5 at row 17, column 3, got 0.0 (off by 12, allowed 2.5e-06)");
  m.ulps = 3;
  m.bound = 0;
  m.got = 12.500003f;
  EXPECT_EQ(DescribeMismatch(m, ToleranceModel::kExact),
            "expected 12.5 at row 17, column 3, got 12.500003 (3 ulps apart)");
  m.got = kPoison;
  m.state = ElementState::kPoison;
  EXPECT_EQ(DescribeMismatch(m, ToleranceModel::kForwardError),
            "expected 12.5 at row 17, column 3, got NaN: never written (still the harness's fill "
            "value)");
}

TEST(Diagnosis, NothingWritten) {
  const Case c({29, 29, 29});
  const CheckResult r = c.Check(std::vector<float>(29 * 29, kPoison));
  EXPECT_TRUE(NothingWritten(r));
  const Diagnosis d = Diagnose(r, c.in.a, c.in.b, 16);
  EXPECT_EQ(d.cause, "Nothing was written to C: was the kernel launched, with the right grid?");
  EXPECT_EQ(d.text,
            "841 of 841 elements of C are wrong (841 never written).\n"
            "  expected " +
                FormatNumber(c.right[0]) +
                " at row 0, column 0, got NaN: never written (still the harness's fill value)\n"
                "  expected " +
                FormatNumber(c.right[1]) +
                " at row 0, column 1, got NaN: never written (still the harness's fill value)\n"
                "  expected " +
                FormatNumber(c.right[2]) +
                " at row 0, column 2, got NaN: never written (still the harness's fill value)\n"
                "  ...\n"
                "Tiles of C (16 x 16 elements; # wrong, . right, ? never written):\n"
                "  ??\n"
                "  ??\n"
                "Nothing was written to C: was the kernel launched, with the right grid?\n");
}

TEST(Diagnosis, GridTooSmall) {
  const Case c({29, 5, 29});
  std::vector<float> got = c.right;
  for (int64_t r = 16; r < 29; ++r)
    for (int64_t col = 0; col < 29; ++col) c.at(got, r, col) = kPoison;  // grid rounded down in y
  const CheckResult r = c.Check(got);
  EXPECT_TRUE(SomeElementsUnwritten(r));
  EXPECT_FALSE(NothingWritten(r));
  const Diagnosis d = Diagnose(r, c.in.a, c.in.b, 16);
  EXPECT_EQ(d.tile_map,
            "Tiles of C (16 x 16 elements; # wrong, . right, ? never written):\n"
            "  ..\n"
            "  ??\n");
  EXPECT_EQ(d.cause,
            "Part of C was never written: is the grid large enough to cover all of C (round up: "
            "(m + TILE - 1) / TILE blocks)?");
}

TEST(Diagnosis, HostFunctionThatWroteNothingIsNotAskedAboutAKernel) {
  const Case c({4, 3, 4});
  const CheckResult r = c.Check(std::vector<float>(16, kPoison));
  DiagnosisOptions host;
  host.kernel = false;
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16, host).cause,
            "Nothing was written to C: does your function store every element, "
            "C[row * k + col] = sum?");
}

// A guard `row > 0`: row 0 is unwritten, everything else right. Before, the hint spoke of the
// grid's size, which covers C here.
TEST(Diagnosis, FirstRowUnwrittenIsAnOffByOneNotTheGrid) {
  const Case c({29, 5, 29});
  std::vector<float> got = c.right;
  for (int64_t col = 0; col < 29; ++col) c.at(got, 0, col) = kPoison;
  const CheckResult r = c.Check(got);
  EXPECT_TRUE(FirstRowOrColumnUnwritten(r));
  EXPECT_FALSE(UnwrittenOnlyPastFullTiles(r, 16));
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause,
            "Part of C was never written, starting at row 0 or column 0: does a condition skip "
            "index 0 (row > 0 instead of row >= 0), or is an index shifted by one?");
}

TEST(Diagnosis, UnwrittenInsideTheGridIsAboutTheStoreCondition) {
  const Case c({32, 5, 32});
  std::vector<float> got = c.right;
  c.at(got, 7, 9) = kPoison;
  const CheckResult r = c.Check(got);
  EXPECT_FALSE(FirstRowOrColumnUnwritten(r));
  EXPECT_FALSE(UnwrittenOnlyPastFullTiles(r, 16));
  // Without the launch, the grid is not known to cover C.
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause,
            "Part of C was never written: which threads skip their store into C, and does the "
            "grid cover all of C?");
  DiagnosisOptions launched;
  launched.threads = {32, 32,
                      "k was launched with a grid of 2 x 2 x 1 blocks of 16 x 16 x 1 threads"};
  launched.launches = 1;
  const Diagnosis d = Diagnose(r, c.in.a, c.in.b, 16, launched);
  EXPECT_EQ(d.cause,
            "Part of C was never written, inside the area the grid covers (k was launched with a "
            "grid of 2 x 2 x 1 blocks of 16 x 16 x 1 threads): which threads skip their store "
            "into C? Check the condition around the store.");
  EXPECT_FALSE(d.definite);
}

// Before, a kernel launched on a grid that covers no element... was asked whether it was
// launched; the launch record says it was, and with what.
TEST(Diagnosis, NothingWrittenSaysWhetherAKernelWasLaunched) {
  const Case c({4, 3, 4});
  const CheckResult r = c.Check(std::vector<float>(16, kPoison));
  DiagnosisOptions none;
  none.launches = 0;
  Diagnosis d = Diagnose(r, c.in.a, c.in.b, 16, none);
  EXPECT_EQ(d.cause, "Nothing was written to C: your function launched no kernel.");
  EXPECT_TRUE(d.definite);
  DiagnosisOptions one;
  one.launches = 1;
  one.threads = {16, 16, "k was launched with a grid of 1 x 1 x 1 blocks of 16 x 16 x 1 threads"};
  d = Diagnose(r, c.in.a, c.in.b, 16, one);
  EXPECT_EQ(
      d.cause.rfind("Nothing was written to C, though k was launched with a grid of 1 x 1 x 1 "
                    "blocks of 16 x 16 x 1 threads: does any thread reach its store into C?",
                    0),
      0u)
      << d.cause;
  // Not evidence: the fill also comes through sums of shared memory no thread wrote (CPU backend).
  EXPECT_FALSE(d.definite);
}

// NaN stored at one element of a C made of full tiles: before, the hint spoke of partial tiles.
TEST(Diagnosis, NaNWrittenIsAboutAValueNeverSet) {
  const Case c({32, 5, 32});
  std::vector<float> got = c.right;
  c.at(got, 3, 5) = std::nanf("");
  const CheckResult r = c.Check(got);
  EXPECT_TRUE(NonFiniteWritten(r));
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause.rfind("NaN or Inf was written into C", 0), 0u);
}

TEST(Diagnosis, OnlyPartialTilesWrong) {
  const Case c({40, 7, 29});
  std::vector<float> got = c.right;
  c.at(got, 35, 3) += 1;  // last tile row (rows 32..39)
  c.at(got, 2, 28) += 1;  // last tile column (columns 16..28)
  const CheckResult r = c.Check(got);
  EXPECT_TRUE(OnlyPartialTilesWrong(r, 16));
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause,
            "Only the last, partial tiles are wrong: boundary check, and partial tiles "
            "zero-filled?");
  c.at(got, 0, 0) += 1;  // and a full tile
  EXPECT_FALSE(OnlyPartialTilesWrong(c.Check(got), 16));
  // No full tile at all: the pattern says nothing.
  const Case small({5, 3, 5});
  std::vector<float> g2 = small.right;
  g2[0] += 1;
  EXPECT_FALSE(OnlyPartialTilesWrong(small.Check(g2), 16));
}

TEST(Diagnosis, SquarePartialTilesAreNotCalledTransposed) {
  const Case c({29, 29, 29});
  std::vector<float> got = c.right;
  for (int64_t i = 16; i < 29; ++i) c.at(got, i, 3) = c.at(got, 3, i) = 0.5f;  // symmetric
  EXPECT_EQ(Diagnose(c.Check(got), c.in.a, c.in.b, 16).cause,
            "Only the last, partial tiles are wrong: boundary check, and partial tiles "
            "zero-filled?");
}

TEST(Diagnosis, Transposed) {
  const Case c({20, 7, 20});
  std::vector<float> got(20 * 20);
  for (int64_t r = 0; r < 20; ++r)
    for (int64_t col = 0; col < 20; ++col) got[col * 20 + r] = c.right[r * 20 + col];
  const CheckResult r = c.Check(got);
  EXPECT_TRUE(LooksTransposed(r));
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause,
            "The result looks transposed: are the row and column indices swapped somewhere?");
  EXPECT_FALSE(LooksTransposed(c.Check(c.right)));
  // Not square: never.
  const Case wide({4, 3, 6});
  std::vector<float> g2 = wide.right;
  g2[1] += 1;
  EXPECT_FALSE(LooksTransposed(wide.Check(g2)));
}

TEST(Diagnosis, SymmetricErrorsWithRightDiagonalLookTransposed) {
  const Case c({8, 3, 8});
  std::vector<float> got = c.right;
  c.at(got, 1, 5) += 2;
  c.at(got, 5, 1) -= 3;
  CheckOptions no_values;
  no_values.keep_reference = false;
  const CheckResult r = *CheckForwardError(c.shape, c.in.a, c.in.b, got, no_values);
  EXPECT_TRUE(LooksTransposed(r));
  c.at(got, 2, 2) += 1;  // a wrong diagonal element breaks the pattern
  EXPECT_FALSE(LooksTransposed(*CheckForwardError(c.shape, c.in.a, c.in.b, got, no_values)));
}

TEST(Diagnosis, ConstantFactor) {
  const Case c({6, 4, 5});
  std::vector<float> got = c.right;
  for (float& x : got) x *= 2;
  const CheckResult r = c.Check(got);
  ASSERT_TRUE(ConstantFactor(r).has_value());
  EXPECT_DOUBLE_EQ(*ConstantFactor(r), 2.0);
  EXPECT_EQ(Diagnose(r, c.in.a, c.in.b, 16).cause,
            "Every wrong value is 2.0 times the expected one: is something accumulated twice, or "
            "an accumulator not reset to 0?");
  got[0] += 1;
  EXPECT_FALSE(ConstantFactor(c.Check(got)).has_value());
  // Zeros where values belong are no sum taken twice (before: "0.0 times the expected one").
  std::vector<float> zeros(got.size(), 0.0f);
  EXPECT_FALSE(ConstantFactor(c.Check(zeros)).has_value());
}

TEST(Diagnosis, TileMapIsCropped) {
  const Case c({40, 2, 35});
  std::vector<float> got = c.right;
  c.at(got, 0, 1) += 1;
  const std::string map = TileMap(c.Check(got), 1);
  EXPECT_EQ(map.substr(0, map.find('\n')),
            "Tiles of C (1 x 1 elements; # wrong, . right, ? never written):");
  EXPECT_NE(map.find("\n  .#" + std::string(30, '.') + "\n"), std::string::npos);
  EXPECT_NE(map.find("  (showing the first 32 x 32 of 40 x 35 tiles)\n"), std::string::npos);
  EXPECT_EQ(TileMap(c.Check(got), 64), "");  // one tile: no map
}

TEST(Diagnosis, UnrecognisedPatternHasNoCause) {
  const Case c({33, 17, 49});
  std::vector<float> got = c.right;
  c.at(got, 3, 4) += 1;
  c.at(got, 20, 7) -= 1;
  const Diagnosis d = Diagnose(c.Check(got), {}, {}, 16);
  EXPECT_EQ(d.cause, "");
  EXPECT_EQ(d.summary, "2 of 1617 elements of C are wrong.");
  EXPECT_EQ(d.tile_map,
            "Tiles of C (16 x 16 elements; # wrong, . right, ? never written):\n"
            "  #...\n"
            "  #...\n"
            "  ....\n");
}

TEST(Diagnosis, AcrossCasesRace) {
  EXPECT_EQ(CauseAcrossCases({{{16, 16, 16}, true, false}, {{64, 64, 64}, false, true}}, 16),
            "The results change from run to run on the same inputs: a race. Does every thread "
            "wait at __syncthreads() after loading the tiles, and again before they are "
            "overwritten?");
}

TEST(Diagnosis, AcrossCasesTileLoop) {
  EXPECT_EQ(CauseAcrossCases({{{16, 16, 16}, true},
                              {{64, 64, 64}, false},
                              {{48, 80, 32}, false},
                              {{128, 16, 256}, true}},
                             16),
            "Wrong only when n > TILE (16): check the loop over tiles: its bound, and how it "
            "moves along A's row and down B's column.");
}

TEST(Diagnosis, AcrossCasesInnerPartialTile) {
  EXPECT_EQ(
      CauseAcrossCases(
          {{{1, 1, 1}, false}, {{64, 64, 64}, true}, {{29, 29, 29}, false}, {{48, 80, 32}, true}},
          16),
      "Wrong only when n is not a multiple of TILE (16): the last tile along n must be "
      "zero-filled where it runs past A and B.");
}

TEST(Diagnosis, AcrossCasesBoundary) {
  EXPECT_EQ(
      CauseAcrossCases({{{17, 16, 16}, false}, {{64, 64, 64}, true}, {{16, 16, 33}, false}}, 16),
      "Wrong only when m or k is not a multiple of TILE (16): boundary check, and partial "
      "tiles zero-filled?");
}

TEST(Diagnosis, AcrossCasesNothingWhenMixed) {
  EXPECT_EQ(CauseAcrossCases({{{16, 16, 16}, false}, {{64, 64, 64}, true}}, 16), "");
  EXPECT_EQ(CauseAcrossCases({{{16, 32, 16}, false}, {{64, 64, 64}, false}}, 16), "");  // none pass
}

TEST(Diagnosis, OrderDifferenceWithinRoundingIsSummationOrder) {
  // A split-k kernel with atomicAdd: 12.345678 one way, 12.345679 the other, bound 1e-5.
  EXPECT_EQ(ClassifyOrderDifference(12.345678f, 12.345679f, 12.3456785, 1e-5),
            OrderCause::kSummationOrder);
  EXPECT_EQ(ClassifyOrderDifference(12.345678f, 0.0f, 12.3456785, 1e-5),
            OrderCause::kMissingBarrier);
  EXPECT_EQ(ClassifyOrderDifference(std::nanf(""), 12.345678f, 12.3456785, 1e-5),
            OrderCause::kMissingBarrier);
  EXPECT_NE(OrderCauseText(OrderCause::kSummationOrder).find("atomicAdd"), std::string::npos);
  EXPECT_NE(OrderCauseText(OrderCause::kMissingBarrier).find("__syncthreads()"), std::string::npos);
}

}  // namespace
}  // namespace labkit
