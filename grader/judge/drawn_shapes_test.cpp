// The shapes drawn from the seed: where they lie, that they are fixed by the seed, and that the
// counted case is one graded case among others of its range, graded in every build and order; and
// a query exercise's parameter set drawn from lab.yaml's lists.
#include "drawn_shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "judge_test.h"

namespace labkit {
namespace {

using namespace testing_harness;

class DrawnShapesTest : public JudgeTest {
 protected:
  GradeEnv Env(uint64_t seed) {
    GradeEnv env{harness_, manifest_, spec_, Backend::kCpu, seed, dir_ + "/work"};
    env.builds = builds_;
    return env;
  }
  // The exercise counted on `technique.measured` at 64 x 64 x 64 (lab 03's).
  Exercise& Counted() { return MeasureTechniqueAt({64, 64, 64}, std::nullopt); }
};

// The counted case's shape comes from the seed: never lab.yaml's own (a function could launch
// tiles there alone), each side above it and at most half as much again, n even (tiles of 2 load
// exactly half of the rows kernel's), every side a multiple of TILE where the exercise's shapes all
// are; and other seeds give other shapes.
TEST_F(DrawnShapesTest, TheCountedShapeIsDrawnFromTheSeedNearThePublishedOne) {
  const Exercise& ex = Counted();
  std::set<std::string> seen;
  for (const bool multiples : {false, true}) {
    spec_.shapes = {{"cases", multiples ? std::vector<Shape>{{16, 32, 48}}
                                        : std::vector<Shape>{{16, 16, 16}, {17, 5, 9}}}};
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      const Shape s = CountedShapeOf(Env(seed), ex);
      for (const int64_t side : {s.m, s.n, s.k}) {
        EXPECT_GT(side, 64);
        EXPECT_LE(side, 96);
        if (multiples) EXPECT_EQ(side % 16, 0) << side;
      }
      EXPECT_EQ(s.n % 2, 0) << s.n;
      seen.insert(ShapeText(s));
      EXPECT_EQ(CountedCase(Env(seed), ex, "tiled").shape, s);
    }
  }
  EXPECT_GT(seen.size(), 20u);
}

// Every exercise gets one case at a shape within its list's range that the list does not have:
// each side at most the list's largest and kLargestDrawnSide, a multiple of TILE or a square where
// the list's shapes all are. Its id follows the listed cases'; the seed alone decides it.
TEST_F(DrawnShapesTest, EveryExerciseGetsACaseWithinItsListsRange) {
  const Exercise& ex = spec_.exercises[0];
  struct List {
    std::vector<Shape> shapes;
    bool multiples, squares;
  };
  const std::vector<List> lists = {
      {{{1, 1, 1}, {517, 300, 263}, {16, 700, 16}}, false, false},
      {{{16, 16, 16}, {48, 80, 32}, {256, 256, 256}}, true, false},
      {{{1, 1, 1}, {4, 4, 4}, {17, 17, 17}, {32, 32, 32}}, false, true}};
  for (const List& list : lists) {
    spec_.shapes = {{"cases", list.shapes}};
    int64_t largest = 0;
    for (const Shape& s : list.shapes) largest = std::max({largest, s.m, s.n, s.k});
    std::set<std::string> seen;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      const std::vector<MatrixCase> drawn = DrawnCases(Env(seed), ex);
      ASSERT_EQ(drawn.size(), 1u);  // not counted: no second case
      const MatrixCase& c = drawn.front();
      EXPECT_EQ(c.id, "tiled_" + std::to_string(list.shapes.size()));
      for (const int64_t side : {c.shape.m, c.shape.n, c.shape.k}) {
        EXPECT_GE(side, 1);
        EXPECT_LE(side, std::min(largest, kLargestDrawnSide));
        if (list.multiples) EXPECT_EQ(side % 16, 0) << ShapeText(c.shape);
      }
      if (list.squares) EXPECT_TRUE(c.shape.m == c.shape.n && c.shape.n == c.shape.k);
      EXPECT_EQ(std::count(list.shapes.begin(), list.shapes.end(), c.shape), 0) << ShapeText(c.shape);
      EXPECT_EQ(c.A.size(), static_cast<std::size_t>(c.shape.m * c.shape.n));
      EXPECT_EQ(c.B.size(), static_cast<std::size_t>(c.shape.n * c.shape.k));
      const MatrixCase again = DrawnCases(Env(seed), ex).front();
      EXPECT_EQ(again.shape, c.shape);
      EXPECT_EQ(again.A, c.A);
      seen.insert(ShapeText(c.shape));
    }
    EXPECT_GT(seen.size(), 10u) << ShapeText(list.shapes.front());
  }
}

// A counted exercise's drawn cases hold the counted shape and one more of the same range (so the
// counted case is not the one call there), in an order the seed draws; the counted run takes the
// graded case itself, id and inputs.
TEST_F(DrawnShapesTest, TheCountedCaseIsOneOfTwoGradedCasesOfItsRange) {
  const Exercise& ex = Counted();
  std::set<std::size_t> counted_at;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const GradeEnv env = Env(seed);
    const std::vector<MatrixCase> drawn = DrawnCases(env, ex);
    ASSERT_EQ(drawn.size(), 3u);
    const Shape counted = CountedShapeOf(env, ex);
    std::size_t at = drawn.size(), beside = drawn.size();
    for (std::size_t i = 1; i < drawn.size(); ++i) (drawn[i].shape == counted ? at : beside) = i;
    ASSERT_LT(at, drawn.size()) << "seed " << seed;
    ASSERT_LT(beside, drawn.size()) << "seed " << seed;
    counted_at.insert(at);
    const Shape& other = drawn[beside].shape;
    for (const int64_t side : {other.m, other.n, other.k}) {
      EXPECT_GT(side, 64);
      EXPECT_LE(side, 96);
    }
    EXPECT_EQ(other.n % 2, 0);
    const MatrixCase taken = CountedCase(env, ex, "tiled?x=1");
    EXPECT_EQ(taken.id, drawn[at].id);
    EXPECT_EQ(taken.A, drawn[at].A);
    EXPECT_EQ(taken.exercise, "tiled?x=1");
  }
  EXPECT_EQ(counted_at, (std::set<std::size_t>{1, 2}));
}

// The counted case is graded as the listed ones are: in the build without fused multiply-add
// (where an fmaf accumulator is one ulp off), and named by its shape.
TEST_F(DrawnShapesTest, TheCountedCaseIsGradedWithoutFusedMultiplyAdd) {
  const Exercise& ex = Counted();
  const MatrixCase counted = CountedCase(Env(7), ex, ex.id);
  harness_.on_case = [&](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (call.build == "nofma" && id == counted.id) a.values = CaseAnswer::Values::kUlpOff;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, kWrongResultCause);
  EXPECT_EQ(v.flavour, Flavour::kNoFma);
  EXPECT_TRUE(Has(v.message, "wrong result in case " + ShapeText(counted.shape) + " (m x n x k)"))
      << v.message;
  EXPECT_TRUE(Has(v.message, "fused multiply-add off")) << v.message;
}

// And in the other thread orders of the CPU backend.
TEST_F(DrawnShapesTest, TheCountedCaseRunsInTheOtherThreadOrders) {
  const Exercise& ex = Counted();
  const MatrixCase counted = CountedCase(Env(7), ex, ex.id);
  harness_.on_case = [&](const HarnessCall& call, const std::string& id) {
    CaseAnswer a;
    if (call.order == "reverse" && id == counted.id) a.values = CaseAnswer::Values::kUlpOff;
    return a;
  };
  const ExerciseVerdict v = Grade(Backend::kCpu);
  EXPECT_EQ(v.status, GradeStatus::kFailed);
  EXPECT_EQ(v.cause, kThreadOrderCause);
  EXPECT_TRUE(Has(v.message, "case " + ShapeText(counted.shape))) << v.message;
}

// Query exercises' parameter sets drawn from the seed (DrawnParamsOf, CountedParamsOf): an
// environment per seed, and nothing run.
class DrawnParams : public ::testing::Test {
 protected:
  GradeEnv Env(uint64_t seed) {
    return {runner_, manifest_, spec_, Backend::kCpu, seed, "/nowhere"};
  }
  static Exercise Query(const std::string& id) {
    Exercise ex;
    ex.id = id;
    ex.kind = ExerciseKind::kQuery;
    return ex;
  }

 private:
  SystemProcessRunner runner_;  // runs nothing here
  Manifest manifest_;
  LabSpec spec_;
};

// The counted case's size comes from the seed, as lab 03's counted shape does: above lab.yaml's
// value up to half as much again, in multiples of `step` (lab 02: whole blocks of 256 points), the
// other parameters as given; the same seed gives the same case.
TEST_F(DrawnParams, CountedCaseIsDrawnFromTheSeed) {
  Exercise ex = Query("float3_staged");
  ex.measured = QueryMeasured{{{"n", 4096}, {"s", 2}}, "n", 3.0};
  ex.measured->step = 256;
  std::set<int64_t> drawn;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const GradeEnv env = Env(seed);
    const ParamSet counted = CountedParamsOf(env, ex);
    EXPECT_EQ(counted, CountedParamsOf(env, ex));
    EXPECT_EQ(counted.at("s"), 2);
    const int64_t n = counted.at("n");
    EXPECT_GT(n, 4096);
    EXPECT_LE(n, 6144);
    EXPECT_EQ(n % 256, 0);
    drawn.insert(n);
  }
  EXPECT_GE(drawn.size(), 4u);  // not one published size under another name
}

// The counted case is graded with lab.yaml's, beside one more of its range (so that it is not the
// only call above the published sizes), the two in an order the seed draws.
TEST_F(DrawnParams, TheCountedCaseIsGradedBesideAnotherOfItsRange) {
  Exercise ex = Query("float3_staged");
  {
    const GradeEnv env = Env(1);
    EXPECT_TRUE(DrawnParamsOf(env, ex).empty()) << "not counted: lab.yaml's cases alone";
  }
  ex.measured = QueryMeasured{{{"n", 4096}}, "n", 3.0};
  ex.measured->step = 256;
  std::set<std::size_t> counted_at;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const GradeEnv env = Env(seed);
    const std::vector<ParamSet> drawn = DrawnParamsOf(env, ex);
    ASSERT_EQ(drawn.size(), 2u);
    EXPECT_EQ(drawn, DrawnParamsOf(env, ex));
    const ParamSet counted = CountedParamsOf(env, ex);
    ASSERT_TRUE(drawn[0] == counted || drawn[1] == counted) << "seed " << seed;
    const std::size_t at = drawn[0] == counted ? 0 : 1;
    counted_at.insert(at);
    const int64_t other = drawn[1 - at].at("n");
    EXPECT_NE(other, counted.at("n"));
    EXPECT_GT(other, 4096);
    EXPECT_LE(other, 6144);
    EXPECT_EQ(other % 256, 0);
  }
  EXPECT_EQ(counted_at, (std::set<std::size_t>{0, 1}));
}

// lab.yaml's `drawn`: sets within the ranges, on each range's steps, the same for one seed, other
// sets for other seeds, and never a published set where the ranges hold others.
TEST_F(DrawnParams, DrawnSetsComeFromTheRangesAndTheSeed) {
  Exercise ex = Query("occupancy");
  ex.params = {{{"kernel", 0}, {"smem", 7}}, {{"kernel", 1}, {"smem", 7}}};
  ex.drawn = QueryDrawn{3, {{"kernel", {0, 1, 1}}, {"smem", {7, 19, 4}}}};
  std::set<ParamSet> seen;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const GradeEnv env = Env(seed);
    const std::vector<ParamSet> drawn = DrawnParamsOf(env, ex);
    ASSERT_EQ(drawn.size(), 3u);
    EXPECT_EQ(drawn, DrawnParamsOf(env, ex));
    for (const ParamSet& set : drawn) {
      ASSERT_EQ(set.size(), 2u);
      EXPECT_TRUE(set.at("kernel") == 0 || set.at("kernel") == 1);
      const int64_t smem = set.at("smem");
      EXPECT_TRUE(smem == 7 || smem == 11 || smem == 15 || smem == 19) << smem;  // 19: the top
      EXPECT_NE(smem, 7) << "a published set (smem 7 is all the published hold)";
      seen.insert(set);
    }
  }
  EXPECT_EQ(seen.size(), 6u);  // every set the ranges hold but the two published ones
  // A range of one value, a published one: the count still stands, the last draw kept.
  ex.drawn = QueryDrawn{2, {{"kernel", {1, 1, 1}}, {"smem", {7, 7, 1}}}};
  const GradeEnv env = Env(5);
  EXPECT_EQ(DrawnParamsOf(env, ex), (std::vector<ParamSet>(2, ex.params[1])));
}

}  // namespace
}  // namespace labkit
