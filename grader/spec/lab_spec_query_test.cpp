// lab.yaml's query exercises: their keys, the cases drawn from the seed (`drawn`) and what their
// kernels did (`measured`).
#include <gtest/gtest.h>

#include <string>

#include "lab_spec.h"
#include "lab_spec_test_lab.h"

namespace labkit {
namespace {

// kLab with a query exercise appended to `exercises` (line 25, after the tiled exercise).
std::string WithQuery(const std::string& body) {
  return Edit("shapes:\n  any:", "  - id: occ\n    kind: query\n" + body + "shapes:\n  any:");
}

const char* const kQuery = R"(    title: Occupancy
    function: active_blocks
    points: 10
    params:
      - {block_side: 16, dynamic_smem: 0}
      - {}
    values: {active_blocks: 0, occupancy: 1.0e-6}
)";

TEST(LabSpec, ParsesQueryExercise) {
  Result<LabSpec> r = ParseLabSpec(WithQuery(kQuery));
  ASSERT_TRUE(r.ok()) << r.error();
  const Exercise& q = r->exercises[2];
  EXPECT_EQ(q.kind, ExerciseKind::kQuery);
  EXPECT_EQ(r->exercises[1].kind, ExerciseKind::kMatmul);
  EXPECT_TRUE(q.kernel.empty());
  ASSERT_EQ(q.params.size(), 2u);
  EXPECT_EQ(q.params[0], (ParamSet{{"block_side", 16}, {"dynamic_smem", 0}}));
  EXPECT_TRUE(q.params[1].empty());
  EXPECT_EQ(ParamText(q.params[0]), "block_side=16, dynamic_smem=0");
  ASSERT_EQ(q.values.size(), 2u);
  EXPECT_EQ(q.values[0].name, "active_blocks");
  EXPECT_EQ(q.values[0].relative_tolerance, 0);
  EXPECT_DOUBLE_EQ(q.values[1].relative_tolerance, 1e-6);
  EXPECT_EQ(r->MaxPoints(), 60);
}

TEST(LabSpec, QueryExerciseKeysAreChecked) {
  std::string q = kQuery;
  EXPECT_EQ(ErrorOf(WithQuery(q + "    shapes: any\n")),
            "lab.yaml:34: exercises[2].shapes: only for kind: matmul (a query exercise multiplies "
            "no matrices)");
  EXPECT_EQ(ErrorOf(WithQuery(q.substr(0, q.find("    values")))),
            "lab.yaml:25: exercises[2]: missing key \"values\"");
  EXPECT_EQ(ErrorOf(WithQuery(q.replace(q.find("1.0e-6"), 6, "-1"))),
            "lab.yaml:33: exercises[2].values.occupancy: expected a number >= 0, got -1");
  q = kQuery;
  EXPECT_EQ(ErrorOf(WithQuery(q.replace(q.find("block_side: 16"), 14, "block_side: big"))),
            "lab.yaml:31: exercises[2].params[0].block_side: expected a non-negative integer, got "
            "\"big\"");
  EXPECT_EQ(ErrorOf(Edit("    given: true\n", "    given: true\n    kind: kernel\n")),
            "lab.yaml:15: exercises[0].kind: expected matmul or query, got \"kernel\"");
  EXPECT_EQ(ErrorOf(Edit("    exact_without_fma: true\n",
                         "    exact_without_fma: true\n    values: {x: 0}\n")),
            "lab.yaml:24: exercises[1].values: only for kind: query");
}

TEST(LabSpec, QueryExerciseTakesDrawn) {
  Result<LabSpec> r = ParseLabSpec(
      WithQuery(std::string(kQuery) +
                "    drawn: {count: 3, ranges: {kernel: [0, 3], smem: [0, 4096, 4]}}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(r->exercises[2].drawn.has_value());
  const QueryDrawn& d = *r->exercises[2].drawn;
  EXPECT_EQ(d.count, 3);
  ASSERT_EQ(d.ranges.size(), 2u);
  EXPECT_EQ(d.ranges.at("kernel").low, 0);
  EXPECT_EQ(d.ranges.at("kernel").high, 3);
  EXPECT_EQ(d.ranges.at("kernel").step, 1);  // without a step, every whole number
  EXPECT_EQ(d.ranges.at("smem").high, 4096);
  EXPECT_EQ(d.ranges.at("smem").step, 4);
  EXPECT_EQ(d.expected_by, DrawnExpected::kHarness);  // none named: the harness's values stand
  EXPECT_TRUE(d.known.empty());
  EXPECT_FALSE(r->exercises[0].drawn.has_value());
}

// labgrade's own formula for the drawn cases' expected values, with the facts it needs.
TEST(LabSpec, QueryDrawnNamesTheGradersFormula) {
  Result<LabSpec> r = ParseLabSpec(
      WithQuery(std::string(kQuery) +
                "    drawn: {count: 1, ranges: {kernel: [2, 3]}, expected_by: occupancy_formula,\n"
                "            known: {registers_of_kernel_2: 37}}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  const QueryDrawn& d = *r->exercises[2].drawn;
  EXPECT_EQ(d.expected_by, DrawnExpected::kOccupancyFormula);
  EXPECT_EQ(d.known, (ParamSet{{"registers_of_kernel_2", 37}}));
  EXPECT_EQ(ErrorOf(WithQuery(std::string(kQuery) +
                              "    drawn: {count: 1, ranges: {n: [1, 2]}, expected_by: sqrt}\n")),
            "lab.yaml:34: exercises[2].drawn.expected_by: expected occupancy_formula, "
            "largest_square_block or suggested_block_side, got \"sqrt\"");
}

// The suggested block side reads the student's kernel, which lab.yaml names.
TEST(LabSpec, QueryDrawnSuggestedBlockSideNamesTheStudentsKernel) {
  Result<LabSpec> r = ParseLabSpec(
      WithQuery(std::string(kQuery) +
                "    drawn: {count: 1, ranges: {max_threads: [32, 1024]},\n"
                "            expected_by: suggested_block_side, kernel: matmul_dynamic_kernel}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  const QueryDrawn& d = *r->exercises[2].drawn;
  EXPECT_EQ(d.expected_by, DrawnExpected::kSuggestedBlockSide);
  EXPECT_EQ(d.kernel, "matmul_dynamic_kernel");
  EXPECT_NE(ErrorOf(WithQuery(std::string(kQuery) +
                              "    drawn: {count: 1, ranges: {max_threads: [32, 1024]},\n"
                              "            expected_by: suggested_block_side}\n"))
                .find("expected_by: suggested_block_side needs `kernel`"),
            std::string::npos);
}

TEST(LabSpec, QueryDrawnKeysAreChecked) {
  const auto error_with = [](const std::string& drawn) {
    return ErrorOf(WithQuery(std::string(kQuery) + "    drawn: " + drawn + "\n"));
  };
  EXPECT_EQ(error_with("{count: 0, ranges: {n: [1, 2]}}"),
            "lab.yaml:34: exercises[2].drawn.count: expected a positive integer, got 0");
  EXPECT_EQ(error_with("{count: 2}"), "lab.yaml:34: exercises[2].drawn: missing key \"ranges\"");
  EXPECT_EQ(error_with("{count: 2, ranges: {}}"),
            "lab.yaml:34: exercises[2].drawn.ranges: name at least one parameter");
  EXPECT_EQ(error_with("{count: 2, ranges: {n: [4, 2]}}"),
            "lab.yaml:34: exercises[2].drawn.ranges.n: high (2) is below low (4)");
  EXPECT_EQ(error_with("{count: 2, ranges: {n: 7}}"),
            "lab.yaml:34: exercises[2].drawn.ranges.n: expected [low, high] or [low, high, step], "
            "got 7");
  EXPECT_EQ(error_with("{count: 2, ranges: {n: [1, 9, 0]}}"),
            "lab.yaml:34: exercises[2].drawn.ranges.n[2]: expected a positive integer, got 0");
  EXPECT_EQ(
      ErrorOf(Edit("    exact_without_fma: true\n",
                   "    exact_without_fma: true\n    drawn: {count: 1, ranges: {n: [1, 2]}}\n")),
      "lab.yaml:24: exercises[1].drawn: only for kind: query");
}

const char* const kMeasured = R"(    measured:
      params: {n: 4096, s: 2}
      per: n
      step: 256
      min_shared_stores_per_element: 3
      max_global_loads_per_element: 3.5
      executes_barrier: true
)";

TEST(LabSpec, QueryExerciseTakesMeasured) {
  Result<LabSpec> r = ParseLabSpec(WithQuery(std::string(kQuery) + kMeasured));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(r->exercises[2].measured.has_value());
  const QueryMeasured& m = *r->exercises[2].measured;
  EXPECT_EQ(m.params, (ParamSet{{"n", 4096}, {"s", 2}}));
  EXPECT_EQ(m.per, "n");
  EXPECT_EQ(m.step, 256);
  EXPECT_EQ(m.min_shared_stores_per_element, 3);
  EXPECT_FALSE(m.min_shared_loads_per_element.has_value());
  EXPECT_DOUBLE_EQ(*m.max_global_loads_per_element, 3.5);
  EXPECT_FALSE(m.max_global_stores_per_element.has_value());
  EXPECT_EQ(m.executes_barrier, true);
  EXPECT_FALSE(r->exercises[1].measured.has_value());
}

TEST(LabSpec, QueryMeasuredKeysAreChecked) {
  const std::string q = std::string(kQuery) + kMeasured;
  std::string bad = q;
  EXPECT_EQ(ErrorOf(WithQuery(bad.replace(bad.find("per: n"), 6, "per: m"))),
            "lab.yaml:36: exercises[2].measured.per: names no parameter of `params`");
  bad = q;
  EXPECT_EQ(ErrorOf(WithQuery(bad.replace(bad.find("n: 4096"), 7, "n: 0"))),
            "lab.yaml:36: exercises[2].measured.per: names a parameter below 1");
  bad = q;
  EXPECT_EQ(ErrorOf(WithQuery(bad.replace(bad.find("step: 256"), 9, "step: 0"))),
            "lab.yaml:37: exercises[2].measured.step: expected a positive integer, got 0");
  EXPECT_EQ(ParseLabSpec(WithQuery(std::string(kQuery) + "    measured: {params: {n: 1}, per: n, "
                                                         "executes_barrier: true}\n"))
                ->exercises[2]
                .measured->step,
            1);  // without `step`, any size
  EXPECT_EQ(ErrorOf(WithQuery(std::string(kQuery) + "    measured: {params: {n: 1}, per: n}\n")),
            "lab.yaml:34: exercises[2].measured: names nothing to check: give a limit per element "
            "or executes_barrier");
  EXPECT_EQ(ErrorOf(WithQuery(
                std::string(kQuery) +
                "    measured: {params: {n: 1}, per: n, max_shared: 1, executes_barrier: true}\n")),
            "lab.yaml:34: exercises[2].measured.max_shared: unknown key");
  EXPECT_EQ(ErrorOf(Edit("    exact_without_fma: true\n",
                         "    exact_without_fma: true\n    measured: {params: {}, per: n}\n")),
            "lab.yaml:24: exercises[1].measured: only for kind: query (a matmul exercise's is "
            "technique.measured)");
}

TEST(LabSpec, SpeedExerciseIsNotAQuery) {
  std::string yaml = WithQuery(kQuery);
  yaml.replace(yaml.find("exercise: tiled"), 15, "exercise: occ");
  EXPECT_EQ(ErrorOf(yaml),
            "lab.yaml:39: speed.exercise: \"occ\" is a query exercise: time one that multiplies "
            "matrices");
}

}  // namespace
}  // namespace labkit
