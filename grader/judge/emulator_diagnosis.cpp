#include "emulator_diagnosis.h"

#include <filesystem>

#include "case_diagnostic.h"
#include "diagnosis.h"
#include "diagnostics_text.h"
#include "exercise_checks.h"
#include "mismatch.h"
#include "resource_report.h"
#include "tolerance.h"
#include "untrusted_file.h"

namespace labkit {

namespace {

// The submission built for the CPU backend's default flavour, once per submission: every
// exercise that needs the emulator shares it, and a build that failed is not tried again.
const BuildOutcome& EmulatorBuild(GradeEnv& env) {
  if (!env.emulator_build) {
    BuildOutcome build;
    if (env.builder == nullptr || env.src_dir.empty()) {
      build.stage = "toolchain";
      build.message = "the grader has no way to build the submission for the emulator here";
    } else {
      build = env.builder->Build(env.src_dir, env.work_dir + "/build_emulator", Backend::kCpu,
                                 Flavour::kDefault);
    }
    env.emulator_build = std::move(build);
  }
  return *env.emulator_build;
}

// The GPU's own ptxas report, handed to the emulator so that its occupancy API answers as the
// GPU's did (the CPU backend does the same with nvcc's report: grade.cpp); "" without one.
std::string KernelsJson(const GradeEnv& env, const std::string& dir) {
  if (!env.resources) return "";
  const std::string path = dir + "/kernels.json";
  return WriteUntrustedFile(path, ToEmulatorJson(*env.resources).dump(1)) ? path : "";
}

// Whether the emulator's run of the case went wrong: it died, failed, or gave wrong values.
bool WrongOnEmulator(const GradeEnv& env, const MatrixCase& c, const CaseRun& e) {
  if (!e.reported || e.status != case_status::kOk) return true;
  const auto check = CheckProduct(env.spec.tolerance.model, c.shape, c.A, c.B, e.C);
  return !check.ok() || !check->passed();
}

}  // namespace

EmulatorCause NeverWrittenMemoryCause(const Shape& shape, const std::vector<float>& gpu,
                                      const std::vector<float>& emulator) {
  EmulatorCause cause;
  const std::size_t size = static_cast<std::size_t>(shape.m * shape.k);
  if (shape.k <= 0 || gpu.size() != size || emulator.size() != size) return cause;
  for (std::size_t i = 0; i < size; ++i) {
    // The GPU wrote the element (anything but the harness's fill, NaN from arithmetic included);
    // on the emulator it holds the fill's bits, which arithmetic on x86 passes on unchanged.
    if (IsPoison(gpu[i]) || !IsPoison(emulator[i])) continue;
    if (cause.elements++ > 0) continue;
    cause.row = static_cast<int64_t>(i) / shape.k;
    cause.col = static_cast<int64_t>(i) % shape.k;
    cause.gpu_value = gpu[i];
  }
  if (cause.elements == 0) return cause;
  cause.kind = EmulatorCause::Kind::kNeverWrittenMemory;
  const int64_t others = cause.elements - 1;
  const std::string what = others == 0 ? " was"
                           : others == 1
                               ? " and 1 other element were"
                               : " and " + std::to_string(others) + " other elements were";
  cause.text = "C at row " + std::to_string(cause.row) + ", column " + std::to_string(cause.col) +
               what +
               " computed from memory that nothing had written: the emulator fills fresh "
               "shared and device memory with NaN, and that NaN came through to C where the GPU "
               "wrote " +
               FormatNumber(cause.gpu_value) +
               " from whatever the memory held. Usual cause: tile elements that no thread stores; "
               "where a tile runs past A or B it must be zero-filled (store 0.0f), not skipped.";
  return cause;
}

EmulatorCause CauseOnEmulator(GradeEnv& env, const Exercise& run, const std::string& dir,
                              const std::vector<MatrixCase>& cases, const HarnessRun& gpu,
                              std::size_t failed) {
  if (failed >= cases.size() || failed >= gpu.cases.size()) return {};
  const BuildOutcome& build = EmulatorBuild(env);
  if (!build.ok) return {};
  std::filesystem::create_directories(dir);
  HarnessOptions options = CheckRunOptions(env, run.id, Replayed(run));
  options.emu_kernels_json = KernelsJson(env, dir);
  options.uses_gpu = false;
  // The failing case runs first: a launch that fails there leaves the process's error sticky, as
  // on a GPU, and the cases after it could not show their own.
  std::vector<std::size_t> order = {failed};
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (i != failed) order.push_back(i);
  std::vector<MatrixCase> ordered;
  for (std::size_t i : order) ordered.push_back(cases[i]);
  const HarnessRun emulated = RunHarness(env.runner, build.executable, dir, options, ordered);
  if (!emulated.harness_error.empty() || emulated.cases.size() != cases.size()) return {};
  const CaseRun& e = emulated.cases.front();
  if (!WrongOnEmulator(env, cases[failed], e)) return {};
  // The emulator's own report first: it names the kernel, the thread and the source line.
  if (const nlohmann::json* d = EmuDiagnosticFor(emulated, e); d != nullptr) {
    EmulatorCause cause;
    cause.kind = EmulatorCause::Kind::kDiagnostic;
    cause.text = DescribeEmuDiagnostic(*d, build.executable, &env.runner, &cases[failed].shape);
    cause.case_index = failed;
    return cause;
  }
  for (std::size_t n = 0; n < order.size(); ++n) {
    const std::size_t i = order[n];
    const CaseRun& on_emulator = emulated.cases[n];
    if (!on_emulator.reported || on_emulator.status != case_status::kOk ||
        gpu.cases[i].status != case_status::kOk)
      continue;
    EmulatorCause cause = NeverWrittenMemoryCause(cases[i].shape, gpu.cases[i].C, on_emulator.C);
    cause.case_index = i;
    if (cause.found()) return cause;
  }
  return {};
}

std::string WithCauseFromEmulator(GradeEnv& env, const Exercise& run, const std::string& dir,
                                  const std::vector<MatrixCase>& cases, const HarnessRun& gpu,
                                  std::size_t failed, const std::string& gpu_failure) {
  if (env.backend != Backend::kGpu) return gpu_failure;
  const EmulatorCause cause = CauseOnEmulator(env, run, dir, cases, gpu, failed);
  if (!cause.found()) return gpu_failure;
  const bool same_case = cause.case_index == failed;
  return "wrong result in " + CaseName(cases[failed]) + ": " +
         (same_case ? "" : "in " + CaseName(cases[cause.case_index]) + ", ") + cause.text +
         (same_case ? " (found by re-running this case on the CPU emulator)"
                    : " (found by re-running the exercise's cases on the CPU emulator)") +
         "\n\nWhat came out on the GPU:\n" + gpu_failure;
}

}  // namespace labkit
