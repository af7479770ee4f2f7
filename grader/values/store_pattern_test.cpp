#include "store_pattern.h"

#include <gtest/gtest.h>

#include "diagnosis.h"
#include "product_case_test_util.h"

namespace labkit {
namespace {

const float kPoison = FloatFromBits(kPoisonBits);

// Inputs of full mantissas: few equal values in C, as in a real case.
struct Case : ProductCase {
  explicit Case(Shape s) : ProductCase(s, ValueKind::kFullMantissa) {}
};

const char* kLaunch = "k was launched with a grid of 1 x 2 x 1 blocks of 8 x 8 x 1 threads";

// C 17 x 9, a grid of 8 threads along x and 16 along y: columns 8 and rows 16 never written.
// Before, with TILE 16 in lab.yaml and a student's tile of 8, this was "inside the area the grid
// covers: which threads skip their store", which the grid does not.
TEST(StorePattern, AGridTooSmallIsToldFromTheLaunch) {
  const Case c({17, 5, 9});
  std::vector<float> got = c.right;
  for (int64_t r = 0; r < 17; ++r)
    for (int64_t col = 0; col < 9; ++col)
      if (r >= 16 || col >= 8) got[r * 9 + col] = kPoison;
  const CheckResult check = c.Check(got);
  const ThreadExtent threads{8, 16, kLaunch};
  EXPECT_EQ(GridTooSmallCause(check, threads),
            "The grid is too small for C (17 x 9): k was launched with a grid of 1 x 2 x 1 blocks "
            "of 8 x 8 x 1 threads, 16 threads along y for C's 17 rows and 8 along x for its 9 "
            "columns, so row 16 and column 8 were never written. Round the number of blocks up: "
            "(m + TILE - 1) / TILE rows of blocks and (k + TILE - 1) / TILE columns of them.");
  DiagnosisOptions options;
  options.threads = threads;
  options.launches = 1;
  const Diagnosis d = Diagnose(check, c.in.a, c.in.b, 16, options);
  EXPECT_EQ(d.cause, GridTooSmallCause(check, threads));
  EXPECT_TRUE(d.definite);
}

// Rows along x, columns along y: the same, the other way round.
TEST(StorePattern, AGridTooSmallWithRowsAlongX) {
  const Case c({20, 3, 40});
  std::vector<float> got = c.right;
  for (int64_t r = 0; r < 20; ++r)
    for (int64_t col = 32; col < 40; ++col) got[r * 40 + col] = kPoison;
  const std::string cause = GridTooSmallCause(c.Check(got), {24, 32, kLaunch});
  EXPECT_NE(cause.find("24 threads along x for C's 20 rows and 32 along y for its 40 columns, so "
                       "columns 32 to 39 were never written"),
            std::string::npos)
      << cause;
}

// dim3 grid((m + 15) / 16, (k + 15) / 16): enough blocks, on the wrong sides. Before: "Part of C
// was never written, inside the area the grid covers".
TEST(StorePattern, AGridWithItsSidesExchanged) {
  const Case c({40, 3, 20});
  std::vector<float> got = c.right;
  for (int64_t r = 32; r < 40; ++r)
    for (int64_t col = 0; col < 20; ++col) got[r * 20 + col] = kPoison;
  const std::string cause = GridTooSmallCause(c.Check(got), {48, 32, kLaunch});
  EXPECT_NE(cause.find("32 threads along y for C's 40 rows and 48 along x for its 20 columns, so "
                       "rows 32 to 39 were never written. Are m and k exchanged in the grid?"),
            std::string::npos)
      << cause;
}

TEST(StorePattern, NotAGridTooSmall) {
  const Case c({17, 5, 9});
  std::vector<float> got = c.right;
  got[3 * 9 + 4] = kPoison;  // inside what the threads reach
  EXPECT_EQ(GridTooSmallCause(c.Check(got), {8, 16, kLaunch}), "");
  EXPECT_EQ(GridTooSmallCause(c.Check(got), {}), "");  // launch not known
  got = c.right;
  for (int64_t col = 0; col < 9; ++col) got[16 * 9 + col] = kPoison;
  // Row 16 unwritten, but the threads reach it either way round: not the grid.
  EXPECT_EQ(GridTooSmallCause(c.Check(got), {32, 32, kLaunch}), "");
  // With 16 threads along x, rows along x would stop at row 15: that reading fits.
  EXPECT_NE(GridTooSmallCause(c.Check(got), {16, 32, kLaunch}).find("so row 16 was never written"),
            std::string::npos);
  EXPECT_TRUE(CoversC({17, 5, 9}, {32, 32, kLaunch}));
  EXPECT_FALSE(CoversC({17, 5, 9}, {16, 16, kLaunch}));
  EXPECT_FALSE(CoversC({17, 5, 9}, {8, 16, kLaunch}));
}

// C[row * n + col] instead of C[row * k + col] with n < k: row 0 is right, the other rows' values
// land on earlier elements, and the end of C is never written. Before: "Part of C was never
// written, inside the area the grid covers"; the values show where they went.
TEST(StorePattern, ValuesStoredAtTheWrongIndex) {
  const Shape s{12, 7, 10};
  const Case c(s);
  std::vector<float> got(s.m * s.k, kPoison);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t col = 0; col < s.k; ++col) got[r * s.n + col] = c.right[r * s.k + col];
  const CheckResult check = c.Check(got);
  const auto misplaced = MisplacedValues(check);
  ASSERT_TRUE(misplaced.has_value());
  EXPECT_EQ(misplaced->row, 0);
  EXPECT_EQ(misplaced->col, 7);  // index 7 = 1 * n + 0: row 1, column 0's value
  EXPECT_EQ(misplaced->from_row, 1);
  EXPECT_EQ(misplaced->from_col, 0);
  const Diagnosis d = Diagnose(check, c.in.a, c.in.b, 16);
  EXPECT_EQ(d.cause.rfind("Right values in the wrong places: C at row 0, column 7 holds the value "
                          "of row 1, column 0, and ",
                          0),
            0u)
      << d.cause;
  EXPECT_NE(d.cause.find("never written as a result). The index of the store into C is wrong"),
            std::string::npos)
      << d.cause;
  EXPECT_TRUE(d.definite);
}

// C[row * n + col] with n = 13 < k = 128 on lab 03's case 128x13x128: several threads store into
// one element, the last one's value staying. Some of C's values lie within each other's bounds,
// which must not hide the pattern.
TEST(StorePattern, ValuesStoredAtTheWrongIndexInALargerC) {
  const Shape s{128, 13, 128};
  const Case c(s);
  std::vector<float> got(s.m * s.k, kPoison);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t col = 0; col < s.k; ++col) got[r * s.n + col] = c.right[r * s.k + col];
  const auto misplaced = MisplacedValues(c.Check(got));
  ASSERT_TRUE(misplaced.has_value());
  EXPECT_EQ(misplaced->row, 0);
  EXPECT_EQ(misplaced->col, 13);
  EXPECT_EQ(misplaced->from_row, 1);  // 1 * 13 + 0, the last thread to store there
  EXPECT_EQ(misplaced->from_col, 0);
}

// Wrong sums (an accumulator that skips a term) are nobody's value.
TEST(StorePattern, WrongSumsAreNotMisplaced) {
  const Case c({12, 7, 10});
  std::vector<float> got = c.right;
  for (int64_t i = 0; i < 12 * 10; i += 3) got[i] += 0.37f;
  EXPECT_FALSE(MisplacedValues(c.Check(got)).has_value());
}

// A large C's values are dense: a wrong sum lands close to other elements' values by chance,
// and must not be taken for one of them.
TEST(StorePattern, ChanceMatchesInALargeCAreNotBelieved) {
  const Case c({200, 300, 200});
  std::vector<float> got = c.right;
  for (int64_t i = 0; i < 8; ++i) got[i * 997] += 0.25f;
  EXPECT_FALSE(MisplacedValues(c.Check(got)).has_value());
}

// Where C's values are dense (n = 300: each bound of about 1e-3 holds several of them), even
// values that really belong elsewhere prove nothing: as many land near some element by chance.
TEST(StorePattern, DenseValuesAreNotBelieved) {
  const Case c({200, 300, 200});
  std::vector<float> got = c.right;
  for (int64_t i = 0; i < 8; ++i) got[i] = c.right[40000 - 1 - i];
  EXPECT_FALSE(MisplacedValues(c.Check(got)).has_value());
}

}  // namespace
}  // namespace labkit
