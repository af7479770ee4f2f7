#include "lab_spec.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "lab_spec_test_lab.h"

namespace labkit {
namespace {

TEST(LabSpec, ParsesValidLab) {
  Result<LabSpec> r = ParseLabSpec(kLab);
  ASSERT_TRUE(r.ok()) << r.error();
  const LabSpec& s = *r;
  EXPECT_EQ(s.id, "99_demo");
  EXPECT_EQ(s.student_files, std::vector<std::string>{"matmul.cu"});
  EXPECT_EQ(s.tile, 16);
  EXPECT_EQ(s.tolerance.model, ToleranceModel::kForwardError);
  EXPECT_EQ(s.tolerance.nofma, ToleranceModel::kExact);
  ASSERT_EQ(s.exercises.size(), 2u);
  EXPECT_TRUE(s.exercises[0].given);
  EXPECT_FALSE(s.exercises[0].technique.has_value());
  EXPECT_EQ(s.exercises[1].line, 17);
  ASSERT_TRUE(s.exercises[1].technique.has_value());
  EXPECT_EQ(s.exercises[1].technique->min_static_shared_bytes, 2048);
  EXPECT_EQ(s.exercises[1].technique->uses_barrier, true);
  EXPECT_FALSE(s.exercises[1].technique->max_static_shared_bytes.has_value());
  ASSERT_NE(s.FindShapes("any"), nullptr);
  EXPECT_EQ(s.FindShapes("any")->shapes[1], (Shape{29, 29, 29}));
  ASSERT_TRUE(s.speed.has_value());
  EXPECT_EQ(s.speed->size, (Shape{256, 256, 256}));
  EXPECT_DOUBLE_EQ(s.speed->full_at, 0.8);
  EXPECT_EQ(s.speed->reps.min, 10);  // defaults when `reps` is absent
  EXPECT_EQ(s.limits.output_bytes, 1048576);
  EXPECT_EQ(s.MaxPoints(), 50);
  EXPECT_EQ(NofmaModel(s, s.exercises[0]), ToleranceModel::kForwardError);
  EXPECT_EQ(NofmaModel(s, s.exercises[1]), ToleranceModel::kExact);
}

TEST(LabSpec, OnlyExerciseKeepsOneExerciseAndItsSpeedItem) {
  Result<LabSpec> r = ParseLabSpec(kLab);
  ASSERT_TRUE(r.ok()) << r.error();
  Result<LabSpec> rows = OnlyExercise(*r, "rows");
  ASSERT_TRUE(rows.ok()) << rows.error();
  ASSERT_EQ(rows->exercises.size(), 1u);
  EXPECT_EQ(rows->exercises[0].id, "rows");
  EXPECT_FALSE(rows->speed.has_value());  // speed times `tiled`, which is not graded here
  EXPECT_EQ(rows->FindShapes("any")->shapes.size(), r->FindShapes("any")->shapes.size());
  Result<LabSpec> tiled = OnlyExercise(*r, "tiled");
  ASSERT_TRUE(tiled.ok()) << tiled.error();
  EXPECT_TRUE(tiled->speed.has_value());
  Result<LabSpec> none = OnlyExercise(*r, "tilde");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "lab 99_demo has no exercise 'tilde' (it has rows, tiled)");
}

TEST(LabSpec, LoadsLab03FromTheRepository) {
  Result<LabSpec> r = LoadLabSpec(LABKIT_SOURCE_DIR "/labs/03_tiled_matmul");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->id, "03_tiled_matmul");
  EXPECT_EQ(r->exercises.size(), 3u);
  EXPECT_EQ(r->FindShapes("any")->shapes.size(), 9u);
  EXPECT_EQ(r->datasets.size(), 3u);
  EXPECT_EQ(r->speed->exercise, "tiled_any");
  EXPECT_EQ(r->speed->reps.max, 200);
  EXPECT_DOUBLE_EQ(r->speed->reps.target_spread, 0.02);
  EXPECT_EQ(r->MaxPoints(), 100);
}

TEST(LabSpec, WrongTypeNamesKeyAndLine) {
  EXPECT_EQ(ErrorOf(Edit("points: 30", "points: ten")),
            "lab.yaml:21: exercises[1].points: expected a non-negative integer, got \"ten\"");
  EXPECT_EQ(ErrorOf(Edit("points: 30", "points: -5")),
            "lab.yaml:21: exercises[1].points: expected a non-negative integer, got -5");
  EXPECT_EQ(ErrorOf(Edit("given: true", "given: maybe")),
            "lab.yaml:14: exercises[0].given: expected true or false, got \"maybe\"");
  EXPECT_EQ(ErrorOf(Edit("tile: 16", "tile: [16]")),
            "lab.yaml:7: tile: expected a positive integer, got a list");
  EXPECT_EQ(ErrorOf(Edit("full_at: 0.8", "full_at: 0")),
            "lab.yaml:34: speed.full_at: expected a number > 0, got 0");
}

TEST(LabSpec, UnknownKeyIsAnErrorWithSuggestion) {
  EXPECT_EQ(ErrorOf(Edit("technique:", "techniqe:")),
            "lab.yaml:24: exercises[1].techniqe: unknown key (did you mean \"technique\"?)");
  EXPECT_EQ(ErrorOf(Edit("uses_barrier: true", "uses_barrier: true, colour: red")),
            "lab.yaml:24: exercises[1].technique.colour: unknown key");
}

TEST(LabSpec, DuplicateKeyIsAnError) {
  EXPECT_EQ(ErrorOf(Edit("tile: 16", "tile: 16\ntile: 32")), "lab.yaml:8: tile: key given twice");
}

TEST(LabSpec, MissingKeyNamesTheMapping) {
  EXPECT_EQ(ErrorOf(Edit("    function: matmul_tiled\n", "")),
            "lab.yaml:17: exercises[1]: missing key \"function\"");
  EXPECT_EQ(ErrorOf(Edit("tile: 16\n", "")), "lab.yaml:1: tile: missing key \"tile\"");
}

TEST(LabSpec, ExerciseShapesMustNameAList) {
  EXPECT_EQ(ErrorOf(Edit("shapes: any\n    exact", "shapes: anything\n    exact")),
            "lab.yaml:22: exercises[1].shapes: no shape list named \"anything\" under `shapes`");
}

TEST(LabSpec, SpeedExerciseMustExistAndNotBeGiven) {
  EXPECT_EQ(ErrorOf(Edit("exercise: tiled", "exercise: tiles")),
            "lab.yaml:30: speed.exercise: no exercise with id \"tiles\"");
  EXPECT_EQ(ErrorOf(Edit("exercise: tiled", "exercise: rows")),
            "lab.yaml:30: speed.exercise: \"rows\" is given (the baseline): time an exercise the "
            "student writes");
}

TEST(LabSpec, DimensionsAreAtLeastOne) {
  EXPECT_EQ(ErrorOf(Edit("[29, 29, 29]", "[29, 0, 29]")),
            "lab.yaml:28: shapes.any[1][1]: expected a positive integer, got 0");
  EXPECT_EQ(ErrorOf(Edit("[29, 29, 29]", "[29, 29]")),
            "lab.yaml:28: shapes.any[1]: expected [m, n, k], got a list of 2");
}

TEST(LabSpec, ExerciseIdsAreUnique) {
  EXPECT_EQ(ErrorOf(Edit("id: tiled", "id: rows")),
            "lab.yaml:17: exercises[1].id: exercise id \"rows\" is used twice\n"
            "lab.yaml:30: speed.exercise: no exercise with id \"tiled\"");
}

TEST(LabSpec, StudentFilesStayInsideTheSubmission) {
  EXPECT_EQ(ErrorOf(Edit("[matmul.cu]", "[../etc/passwd]")),
            "lab.yaml:4: student_files[0]: \"../etc/passwd\" must be a relative path that stays "
            "inside its folder");
}

TEST(LabSpec, ToleranceModelIsChecked) {
  EXPECT_EQ(ErrorOf(Edit("nofma: exact", "nofma: loose")),
            "lab.yaml:8: tolerance.nofma: expected forward_error or exact, got \"loose\"");
}

TEST(LabSpec, HarnessNamesTheKitsDriver) {
  EXPECT_EQ(ErrorOf(Edit("harness: matmul", "harness: stencil")),
            "lab.yaml:6: harness: expected matmul (the kit's one harness driver, common/harness), "
            "got \"stencil\"");
}

TEST(LabSpec, RepsAreChecked) {
  EXPECT_EQ(ErrorOf(Edit("zero_at: 1.0", "zero_at: 1.0\n  reps: {min: 20, max: 5}")),
            "lab.yaml:36: speed.reps: max (5) is smaller than min (20)");
}

TEST(LabSpec, ReportsEveryErrorInFileOrder) {
  std::string yaml = Edit("tile: 16", "tile: sixteen");
  yaml.replace(yaml.find("points: 30"), 10, "points: ten");
  EXPECT_EQ(ErrorOf(yaml),
            "lab.yaml:7: tile: expected a positive integer, got \"sixteen\"\n"
            "lab.yaml:21: exercises[1].points: expected a non-negative integer, got \"ten\"");
}

TEST(LabSpec, SyntaxErrorHasLine) {
  EXPECT_EQ(ErrorOf(Edit("title: Tiled", "title: [Tiled")).substr(0, 32),
            "lab.yaml:19: YAML syntax error: ");
}

TEST(LabSpec, EmptyAndNonMappingFiles) {
  EXPECT_EQ(ErrorOf(""), "lab.yaml: the file is empty");
  EXPECT_EQ(ErrorOf("- a\n- b\n"), "lab.yaml:1: (top level): expected a mapping, got a list");
}

TEST(LabSpec, ListsAreChecked) {
  EXPECT_EQ(ErrorOf(Edit("[matmul.cu]", "[]")),
            "lab.yaml:4: student_files: expected a non-empty list of file names, got a list");
  EXPECT_EQ(ErrorOf(std::string(kLab) + "datasets: example\n"),
            "lab.yaml:37: datasets: expected a list of dataset names, got \"example\"");
  EXPECT_EQ(ErrorOf(std::string(kLab) + "datasets: [ok, \"not ok\"]\n"),
            "lab.yaml:37: datasets[1]: \"not ok\" may hold only letters, digits, '_' and '-'");
}

TEST(LabSpec, MatmulExerciseTakesParamsAndNewTechniqueKeys) {
  Result<LabSpec> r = ParseLabSpec(
      Edit("technique: {min_static_shared_bytes: 2048, uses_barrier: true}",
           "technique: {max_static_shared_bytes: 0, dynamic_shared_bytes_per_thread: 8, "
           "single_block: false, reads_constant: true}\n    params: [{block_side: 4}, {block_side: "
           "32}]"));
  ASSERT_TRUE(r.ok()) << r.error();
  const Exercise& e = r->exercises[1];
  ASSERT_EQ(e.params.size(), 2u);
  EXPECT_EQ(e.params[1].at("block_side"), 32);
  EXPECT_EQ(e.technique->dynamic_shared_bytes_per_thread, 8);
  EXPECT_EQ(e.technique->single_block, false);
  EXPECT_EQ(e.technique->reads_constant, true);
  EXPECT_EQ(
      ErrorOf(Edit("uses_barrier: true}", "uses_barrier: true}\n    params: [{block-side: 1}]")),
      "lab.yaml:25: exercises[1].params[0].block-side: a parameter's name must be a C identifier");
}

// min_threads_per_element_of_c: a number above 0 (a kernel of several elements per thread asks
// for a fraction), a hint of its own.
TEST(LabSpec, ThreadsPerElementOfC) {
  const std::string from = "    technique: {min_static_shared_bytes: 2048, uses_barrier: true}\n";
  Result<LabSpec> r =
      ParseLabSpec(Edit(from,
                        "    technique:\n      min_threads_per_element_of_c: 1\n      hints: "
                        "{min_threads_per_element_of_c: One thread per element}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exercises[1].technique->min_threads_per_element_of_c, 1.0);
  EXPECT_EQ(r->exercises[1].technique->hints.at("min_threads_per_element_of_c"),
            "One thread per element");
  r = ParseLabSpec(Edit(from, "    technique: {min_threads_per_element_of_c: 0.25}\n"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exercises[1].technique->min_threads_per_element_of_c, 0.25);
  EXPECT_EQ(ErrorOf(Edit(from, "    technique: {min_threads_per_element_of_c: 0}\n")),
            "lab.yaml:24: exercises[1].technique.min_threads_per_element_of_c: expected a number "
            "> 0, got 0");
}

TEST(LabSpec, MeasuredTechnique) {
  Result<LabSpec> r = ParseLabSpec(Edit(
      "uses_barrier: true}",
      "uses_barrier: true, measured: {shape: [64, 64, 64], max_global_loads_vs_rows: 0.5, "
      "reads_shared: true, executes_barrier: true}}"));
  ASSERT_TRUE(r.ok()) << r.error();
  const MeasuredTechnique& m = *r->exercises[1].technique->measured;
  EXPECT_EQ(m.shape, (Shape{64, 64, 64}));
  EXPECT_EQ(m.max_global_loads_vs_rows, 0.5);
  EXPECT_EQ(m.reads_shared, true);
  EXPECT_EQ(m.executes_barrier, true);
  EXPECT_EQ(ErrorOf(Edit("uses_barrier: true}", "measured: {max_global_loads_vs_rows: 0}}")),
            "lab.yaml:24: exercises[1].technique.measured: missing key \"shape\"\n"
            "lab.yaml:24: exercises[1].technique.measured.max_global_loads_vs_rows: expected a "
            "number > 0, got 0");
  EXPECT_EQ(ErrorOf(Edit("uses_barrier: true}", "measured: {shape: [64, 64, 64]}}")),
            "lab.yaml:24: exercises[1].technique.measured: names nothing to check: give "
            "max_global_loads_vs_rows, min_shared_loads_vs_rows, reads_shared or "
            "executes_barrier");
}

// technique.hints: the lab's words after a failed check, by the check's key; a hint for a check the
// technique does not make, or an empty one, is an error at its line.
TEST(LabSpec, TechniqueHintsNameTheirCheck) {
  const std::string hinted =
      "    technique:\n"
      "      uses_barrier: true\n"
      "      hints: {uses_barrier: Call __syncthreads() after loading a tile}\n";
  const std::string from = "    technique: {min_static_shared_bytes: 2048, uses_barrier: true}\n";
  Result<LabSpec> r = ParseLabSpec(Edit(from, hinted));
  ASSERT_TRUE(r.ok()) << r.error();
  const Technique& t = *r->exercises[1].technique;
  EXPECT_EQ(t.hints.size(), 1u);
  EXPECT_EQ(WithHint(t, "uses_barrier", "it passed none"),
            "it passed none. Call __syncthreads() after loading a tile");
  EXPECT_EQ(WithHint(t, "uses_barrier", "it passed none."),
            "it passed none. Call __syncthreads() after loading a tile");
  EXPECT_EQ(WithHint(t, "max_registers", "too many registers"), "too many registers");

  EXPECT_EQ(ErrorOf(Edit(from, "    technique: {uses_barrier: true, hints: {single_block: x}}\n")),
            "lab.yaml:24: exercises[1].technique.hints.single_block: names no check of this "
            "technique");
  EXPECT_EQ(ErrorOf(Edit(from, "    technique: {uses_barrier: true, hints: {hints: x}}\n")),
            "lab.yaml:24: exercises[1].technique.hints.hints: names no check of this technique");
  EXPECT_EQ(
      ErrorOf(Edit(from, "    technique: {uses_barrier: true, hints: {uses_barrier: \"\"}}\n")),
      "lab.yaml:24: exercises[1].technique.hints.uses_barrier: must not be empty");
  EXPECT_EQ(ErrorOf(Edit(from, "    technique: {uses_barrier: true, hints: [a]}\n")),
            "lab.yaml:24: exercises[1].technique.hints: expected a mapping, got a list");
}

// The kit's labs keep their own words in their lab.yaml: lab 01's one block of Width x Width
// threads, lab 04's requiredSM-style size and __constant__ block side.
TEST(LabSpec, TheKitsLabsCarryTheirHints) {
  Result<LabSpec> lab01 = LoadLabSpec(std::string(LABKIT_SOURCE_DIR) + "/labs/01_first_kernels");
  ASSERT_TRUE(lab01.ok()) << lab01.error();
  const Exercise* one_block = lab01->FindExercise("one_block");
  ASSERT_NE(one_block, nullptr);
  EXPECT_NE(one_block->technique->hints.at("single_block").find("Width x Width"),
            std::string::npos);
  // Both kernels of lab 01 start one thread per element of C (a grid of blocks rounded up starts
  // more).
  for (const char* id : {"one_block", "rows"})
    EXPECT_EQ(lab01->FindExercise(id)->technique->min_threads_per_element_of_c, 1.0) << id;
  Result<LabSpec> lab04 = LoadLabSpec(std::string(LABKIT_SOURCE_DIR) + "/labs/04_occupancy");
  ASSERT_TRUE(lab04.ok()) << lab04.error();
  const Technique& dynamic = *lab04->FindExercise("dynamic")->technique;
  EXPECT_NE(dynamic.hints.at("dynamic_shared_bytes_per_thread").find("requiredSM"),
            std::string::npos);
  EXPECT_NE(dynamic.hints.at("reads_constant").find("cudaMemcpyToSymbol"), std::string::npos);
}

TEST(LabSpec, LoadChecksFolderNameAndMissingFile) {
  const std::string dir = ::testing::TempDir() + "/lab_spec_test_98_other";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  std::FILE* f = std::fopen((dir + "/lab.yaml").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(kLab, f);
  std::fclose(f);
  EXPECT_EQ(LoadLabSpec(dir + "/").error(),
            dir +
                "/lab.yaml: id: \"99_demo\" does not match the lab's folder "
                "\"lab_spec_test_98_other\"");
  EXPECT_EQ(LoadLabSpec("/nonexistent/03_x").error(),
            "/nonexistent/03_x/lab.yaml: cannot open: No such file or directory");
}

TEST(LabSpec, LimitsFallBackToTheKitsDefaultsOnlyWhereUnset) {
  Limits limits;
  EXPECT_EQ(limits.CompileSeconds(), 120);
  EXPECT_EQ(limits.RunSeconds(), 60);
  limits.compile_seconds = 30;
  limits.run_seconds = 5;
  EXPECT_EQ(limits.CompileSeconds(), 30);
  EXPECT_EQ(limits.RunSeconds(), 5);
}

}  // namespace
}  // namespace labkit
