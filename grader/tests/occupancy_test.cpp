// The CPU backend models an H100: its occupancy API must give exactly the real GPU's answers for
// every kernel of every lab's reference solution, over a grid of block and shared-memory sizes.
// The expected answers live in occupancy/<lab>.json. On a GPU (--backend=gpu, label gpu) this test
// checks the file against the real H100; on the CPU backend it checks the emulator against the
// file. `--write` rewrites the file from the backend in use (do that on an H100 only).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "backend.h"
#include "exercise_grader.h"
#include "harness_runner.h"
#include "inputs.h"
#include "lab_spec.h"
#include "manifest.h"
#include "test_backend.h"
#include "resource_report.h"
#include "scratch_dir.h"
#include "submission_build.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

bool g_write = false;

// kernel (mangled) -> its table, for every kernel the lab's solution launches.
nlohmann::json MeasureLab(const Manifest& manifest, const LabSpec& spec) {
  SystemProcessRunner runner;
  SubmissionBuilder builder(runner, manifest, spec);
  const ScratchDir scratch("labkit_occupancy_" + spec.id);
  const std::string work = scratch.path().string();
  const std::string src = manifest.source_dir + "/solutions/" + spec.id;
  const BuildOutcome build = builder.Build(src, work + "/build", BackendUnderTest(), Flavour::kDefault);
  EXPECT_TRUE(build.ok) << build.message;
  const auto ptxas = builder.ResourceReportText(src, work + "/ptx");
  EXPECT_TRUE(ptxas.ok()) << (ptxas.ok() ? "" : ptxas.error());
  auto report = ParsePtxasReport(ptxas.ok() ? *ptxas : "");
  EXPECT_TRUE(report.ok());
  const std::string kernels_json = work + "/kernels.json";
  std::ofstream(kernels_json) << ToEmulatorJson(*report).dump();

  nlohmann::json tables = nlohmann::json::object();
  for (const Exercise& ex : spec.exercises) {
    if (ex.kernel.empty()) continue;  // host-side or query exercises launch nothing to probe
    const ShapeList* shapes = spec.FindShapes(ex.shapes);
    if (shapes == nullptr || shapes->shapes.empty()) continue;
    MatrixCase c;
    c.id = "probe";
    c.shape = shapes->shapes.back();
    ProductInputs in = GenerateProductInputs(1, c.id, c.shape, ValueKind::kSmallIntegers);
    c.A = in.a;
    c.B = in.b;
    HarnessOptions options;
    options.exercise = ex.id;
    options.occupancy_probe = true;
    options.emu_kernels_json = kernels_json;
    const HarnessRun run = RunHarness(runner, build.executable, work + "/" + ex.id, options, {c});
    EXPECT_TRUE(run.done) << ex.id << ": " << run.process.Describe() << run.process.output;
    for (const auto& line : run.occupancy) tables[line.value("kernel", "?")] = line["table"];
  }
  return tables;
}

class OccupancyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OccupancyTest, ModelledGpuAnswersLikeTheH100) {
  Manifest manifest;
  std::string error;
  ASSERT_TRUE(LoadManifest(DefaultManifestPath(), manifest, error)) << error;
  if (const std::string why = WhyBackendUnavailable(manifest); !why.empty()) GTEST_SKIP() << why;
  if (manifest.nvcc.empty()) GTEST_SKIP() << "no nvcc here: kernel resources cannot be read";
  auto spec = LoadLabSpec(manifest.LabDir(GetParam()));
  ASSERT_TRUE(spec.ok()) << spec.error();
  // Lab 02's exercises are all queries whose kernels the lab's harness launches itself: no
  // exercise names a kernel for the occupancy probe to follow.
  if (std::none_of(spec->exercises.begin(), spec->exercises.end(),
                   [](const Exercise& ex) { return !ex.kernel.empty(); }))
    GTEST_SKIP() << GetParam() << " has no exercise that names a kernel";

  const fs::path expected_path = fs::path(LABKIT_OCCUPANCY_DIR) / (GetParam() + ".json");
  // A new lab has no table until someone with an H100 records one: its absence is reported, and
  // the rest of CI is not held up by a machine few contributors have.
  if (!g_write && !fs::exists(expected_path))
    GTEST_SKIP() << "no recorded H100 occupancy table for " << GetParam() << " (" << expected_path
                 << "): the modelled GPU's answers are not compared; record it with "
                    "occupancy_test --backend=gpu --write on an H100";
  const nlohmann::json measured = MeasureLab(manifest, *spec);
  ASSERT_FALSE(measured.empty()) << "no kernel was launched";
  if (g_write) {
    std::ofstream out(expected_path);  // one row per line: reviewable in a diff
    out << "{\n";
    for (auto it = measured.begin(); it != measured.end(); ++it) {
      out << "  " << nlohmann::json(it.key()).dump() << ": [\n";
      for (std::size_t r = 0; r < it.value().size(); ++r)
        out << "    " << it.value()[r].dump() << (r + 1 < it.value().size() ? ",\n" : "\n");
      out << "  ]" << (std::next(it) != measured.end() ? ",\n" : "\n");
    }
    out << "}\n";
    GTEST_SKIP() << "wrote " << expected_path;
  }
  std::ifstream in(expected_path);
  ASSERT_TRUE(in) << expected_path << " cannot be read";
  const nlohmann::json expected = nlohmann::json::parse(in);
  for (const auto& [kernel, table] : expected.items()) {
    ASSERT_TRUE(measured.contains(kernel)) << kernel << " was not launched";
    EXPECT_EQ(measured[kernel], table) << "occupancy answers differ for " << kernel
                                       << " (rows: block size, dynamic shared bytes, blocks/SM)";
  }
}

std::vector<std::string> Labs() {
  std::vector<std::string> labs;
  for (const auto& e : fs::directory_iterator(LABKIT_LABS_DIR))
    if (fs::exists(e.path() / "lab.yaml")) labs.push_back(e.path().filename().string());
  std::sort(labs.begin(), labs.end());
  return labs;
}

INSTANTIATE_TEST_SUITE_P(Lab, OccupancyTest, ::testing::ValuesIn(Labs()),
                         [](const auto& info) { return "lab" + info.param.substr(0, 2); });

}  // namespace
}  // namespace labkit

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  labkit::SelectBackendFromArgs(argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--write") labkit::g_write = true;
  }
  return RUN_ALL_TESTS();
}
