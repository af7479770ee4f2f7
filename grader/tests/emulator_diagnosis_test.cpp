// The GPU backend's emulator diagnosis (judge/emulator_diagnosis.h) on the real emulator, so that
// it is checked where there is no GPU: student-corpus submissions are built for the CPU backend in
// the sandbox and the lab's cases are run there, against a stand-in for what a GPU computed (the
// right product with C(0, 0) of case 29x29x29 wrong, every element written). Whole-grader runs on
// a GPU check the rest (student_corpus_gpu: wrong_early_return, wrong_nan_from_uninitialised_tile).
#include "emulator_diagnosis.h"

#include <gtest/gtest.h>

#include "exactness.h"
#include "lab_spec.h"
#include "manifest.h"
#include "sandbox.h"
#include "scratch_dir.h"

namespace labkit {
namespace {

struct Expected {
  std::string submission;  // a folder of student_corpus/03_tiled_matmul
  EmulatorCause::Kind kind;
  std::string words;  // in the cause's text; "" for kNone
  bool builds = true;
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.submission; }

class OnTheEmulator : public ::testing::TestWithParam<Expected> {};

TEST_P(OnTheEmulator, FindsTheCauseAGpuCannotSee) {
  Manifest manifest;
  std::string error;
  ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest, error)) << error;
  if (!manifest.emu_backend) GTEST_SKIP() << "this build has no CPU backend";
  const auto lab = LoadLabSpec(manifest.LabDir("03_tiled_matmul"));
  ASSERT_TRUE(lab.ok()) << lab.error();
  const auto spec = OnlyExercise(*lab, "tiled_any");
  ASSERT_TRUE(spec.ok()) << spec.error();

  const Expected& want = GetParam();
  const std::string src =
      std::string(LABKIT_STUDENT_CORPUS_DIR) + "/03_tiled_matmul/" + want.submission;
  const ScratchDir scratch("labkit_emulator_diagnosis_" + want.submission);
  const std::string work = scratch.path().string();
  SandboxedProcessRunner runner(GradingSandboxPolicy(manifest, spec->id, src, work));
  SubmissionBuilder builder(runner, manifest, *spec);
  GradeEnv env{runner, manifest, *spec, Backend::kGpu, 7, work};
  env.builder = &builder;
  env.src_dir = src;

  // The lab's own cases, every element written; C(0, 0) wrong in 29x29x29, where an unfilled
  // partial tile holds the tile before's values (not the emulator's NaN) on both machines.
  const Exercise& exercise = spec->exercises.front();
  const std::vector<MatrixCase> cases = CasesFor(env, exercise);
  HarnessRun gpu;
  for (const MatrixCase& c : cases) {
    CaseRun& r = gpu.cases.emplace_back();
    r.id = c.id;
    r.reported = true;
    r.status = "ok";
    r.C = SequentialProduct(c.shape, c.A, c.B);
  }
  const std::size_t failed = 1;
  ASSERT_EQ(cases.at(failed).shape.n, 29);
  gpu.cases[failed].C[0] = 2 * gpu.cases[failed].C[0] + 1;

  const EmulatorCause cause =
      CauseOnEmulator(env, exercise, work + "/emulator", cases, gpu, failed);
  ASSERT_TRUE(env.emulator_build.has_value());
  EXPECT_EQ(env.emulator_build->ok, want.builds) << env.emulator_build->message;
  EXPECT_EQ(cause.kind, want.kind) << cause.text;
  if (!want.words.empty()) EXPECT_NE(cause.text.find(want.words), std::string::npos) << cause.text;
  EXPECT_EQ(cause.text.find('\n'), std::string::npos) << "one line: " << cause.text;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, OnTheEmulator,
    ::testing::Values(
        Expected{"wrong_early_return", EmulatorCause::Kind::kDiagnostic,
                 "__syncthreads() reached by only some threads of a block in tiledAny"},
        Expected{"wrong_nan_from_uninitialised_tile", EmulatorCause::Kind::kNeverWrittenMemory,
                 "computed from memory that nothing had written"},
        // Right on the emulator: a GPU's wrong value there has nothing more to be told.
        Expected{"tile_width_16", EmulatorCause::Kind::kNone, ""},
        // Code the emulator refuses (nvcc does too; here it stands for any that only nvcc takes).
        Expected{"wrong_vla_shared", EmulatorCause::Kind::kNone, "", false}),
    [](const ::testing::TestParamInfo<Expected>& info) { return info.param.submission; });

}  // namespace
}  // namespace labkit
