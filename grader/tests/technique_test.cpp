// Lab 03's technique judged from behaviour on the CPU backend (lab.yaml `technique.measured`):
// correct tiled products with every tile width from 2, rectangular tiles, thread coarsening and
// register blocking pass; the rows kernel, a decoy beside it, and tiles declared but unused fail.
//
// The variants (technique/03_tiled_matmul/<variant>/matmul.cu) put one kernel in each of the
// lab's three function slots, and each slot is counted on the rule's case in one harness run of
// the default build (every access instrumented): the check under test, without grading
// everything else three times.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "backend.h"
#include "harness_runner.h"
#include "inputs.h"
#include "lab_spec.h"
#include "manifest.h"
#include "measured_technique.h"
#include "scratch_dir.h"
#include "submission_build.h"
#include "tolerance.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

struct Slot {
  std::string exercise;  // the lab's function slot the variant fills
  std::string what;      // the variant, for failure messages
  std::string failure;   // "" when it must pass, else a part of the expected reason
};

struct Variant {
  std::string dir;
  std::vector<Slot> slots;
  // Counted at this shape instead of lab.yaml's (which the seed moves on a real grading).
  std::optional<Shape> shape = std::nullopt;
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.dir; }

class TechniqueByBehaviour : public ::testing::TestWithParam<Variant> {};

TEST_P(TechniqueByBehaviour, CountsDecide) {
  Manifest manifest;
  std::string error;
  ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest, error)) << error;
  if (!manifest.emu_backend) GTEST_SKIP() << "this build has no CPU backend";
  const auto spec = LoadLabSpec(manifest.LabDir("03_tiled_matmul"));
  ASSERT_TRUE(spec.ok()) << spec.error();
  const Exercise* tiled_any = spec->FindExercise("tiled_any");
  ASSERT_TRUE(tiled_any && tiled_any->technique && tiled_any->technique->measured);
  const Variant& v = GetParam();
  MeasuredTechnique rule = *tiled_any->technique->measured;
  if (v.shape) rule.shape = *v.shape;

  const ScratchDir scratch("labkit_technique_" + v.dir);
  const std::string work = scratch.path().string();
  SystemProcessRunner runner;
  SubmissionBuilder builder(runner, manifest, *spec);
  const BuildOutcome build = builder.Build(std::string(LABKIT_TECHNIQUE_DIR) + "/" + v.dir,
                                           work + "/build", Backend::kCpu, Flavour::kDefault);
  ASSERT_TRUE(build.ok) << build.message;

  std::vector<MatrixCase> cases;
  for (const Slot& s : v.slots) {
    ProductInputs in = GenerateProductInputs(7, s.exercise, rule.shape, ValueKind::kFullMantissa);
    cases.push_back({s.exercise, rule.shape, std::move(in.a), std::move(in.b), s.exercise});
  }
  HarnessOptions options;
  options.exercise = "tiled_any";
  options.exact_layout = true;
  options.count_accesses = true;
  const HarnessRun run = RunHarness(runner, build.executable, work + "/run", options, cases);
  ASSERT_TRUE(run.done) << run.process.Describe() << "\n" << run.process.output;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Slot& s = v.slots[i];
    ASSERT_EQ(run.cases[i].status, "ok") << s.what << ": " << run.cases[i].detail;
    const auto check = CheckProduct(ToleranceModel::kForwardError, rule.shape, cases[i].A,
                                    cases[i].B, run.cases[i].C);
    ASSERT_TRUE(check.ok() && check->passed()) << s.what << " computes a wrong product";
    const std::string verdict = CheckMeasuredTechnique(rule, run.cases[i].launches);
    if (s.failure.empty()) {
      EXPECT_EQ(verdict, "") << s.what;
    } else {
      EXPECT_NE(verdict.find(s.failure), std::string::npos) << s.what << ":\n" << verdict;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lab03, TechniqueByBehaviour,
    ::testing::Values(
        Variant{"tiles_2_3_4",
                {{"rows", "2 x 2 tiles", ""},
                 {"tiled", "3 x 3 tiles", ""},
                 {"tiled_any", "4 x 4 tiles", ""}}},
        Variant{"tiles_8_32_rectangular",
                {{"rows", "8 x 8 tiles", ""},
                 {"tiled", "32 x 32 tiles", ""},
                 {"tiled_any", "16 x 4 and 4 x 8 tiles", ""}}},
        // No side a multiple of 2, 3 or 4: partial tiles at the edges still load whole tiles, so
        // tiles of 2 load a little more than half the rows kernel's 2n (seed 11 drew this shape).
        Variant{"tiles_2_3_4",
                {{"rows", "2 x 2 tiles, odd sides", ""},
                 {"tiled", "3 x 3 tiles, odd sides", ""},
                 {"tiled_any", "4 x 4 tiles, odd sides", ""}},
                Shape{201, 199, 181}},
        Variant{"coarsened_register_blocked",
                {{"rows", "thread coarsening", ""}, {"tiled", "register blocking", ""}}},
        // At lab.yaml's counted shape, 144 x 144 x 144: the rows kernel's 2n is 288.
        Variant{"rows_and_decoys",
                {{"rows", "the rows kernel",
                  "matmul_rows_kernel loaded 288.0 floats from global memory per element of C"},
                 {"tiled", "a decoy beside the rows kernel",
                  "your kernels loaded 288.0 floats from global memory per element of C "
                  "(decoy_kernel: 0.0, matmul_rows_kernel: 288.0)"},
                 {"tiled_any", "tiles declared but unused",
                  "declared_but_unused_kernel loaded 288.0 floats"}}}),
    [](const ::testing::TestParamInfo<Variant>& info) {
      const std::optional<Shape>& s = info.param.shape;
      return info.param.dir + (s ? "_" + ShapeText(*s) : "");
    });

}  // namespace
}  // namespace labkit
