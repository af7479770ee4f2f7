// labgrade's entry point: the only place where failures become exit statuses.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <thread>

#include "batch.h"
#include "cli.h"
#include "grade.h"
#include "gradescope_bundle.h"
#include "lab_spec.h"
#include "manifest.h"
#include "report.h"
#include "sandbox.h"
#include "starter_files.h"

namespace fs = std::filesystem;
using namespace labkit;

namespace {

std::string AvailableLabs(const Manifest& manifest) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(manifest.source_dir + "/labs", ec))
    if (fs::exists(entry.path() / "lab.yaml")) names.insert(entry.path().filename().string());
  for (const auto& [lab, dir] : manifest.lab_dirs)
    if (fs::exists(dir + "/lab.yaml")) names.insert(lab);
  std::string labs;
  for (const std::string& name : names) labs += " " + name;
  return labs.empty() ? " (none)" : labs;
}

int LoadSpec(const Manifest& manifest, const std::string& lab, LabSpec& spec) {
  if (!fs::exists(manifest.LabDir(lab) + "/lab.yaml")) {
    std::cerr << "labgrade: unknown lab '" << lab << "'; labs here:" << AvailableLabs(manifest)
              << "\n";
    return kExitMissing;
  }
  auto loaded = LoadLabSpec(manifest.LabDir(lab));
  if (!loaded) {
    std::cerr << "labgrade: " << loaded.error() << "\n";
    return kExitMissing;
  }
  spec = std::move(*loaded);
  return kExitGraded;
}

// Chooses the backend; returns an exit status when grading cannot go on.
int ChooseBackend(const Manifest& manifest, BackendChoice choice, Backend& backend) {
  const bool gpu = manifest.gpu_backend && GpuPresent();
  if (choice == BackendChoice::kGpu && !gpu) {
    std::cerr << "labgrade: no GPU here: --backend gpu needs an NVIDIA GPU that answers and a kit "
                 "built with nvcc. Use --backend cpu (or auto) to grade correctness on the CPU "
                 "backend.\n";
    return kExitNoGpu;
  }
  backend = choice == BackendChoice::kCpu || !gpu ? Backend::kCpu : Backend::kGpu;
  if (backend == Backend::kCpu && !manifest.emu_backend) {
    std::cerr << "labgrade: this build of the kit has no CPU backend (Boost.Context was not found "
                 "when it was configured): install libboost-context-dev and rebuild.\n";
    return kExitMissing;
  }
  if (choice == BackendChoice::kAuto && backend == Backend::kCpu)
    std::cerr << "labgrade: no GPU found: grading on the CPU backend (speed is not measured)\n";
  // What the CPU backend cannot hold here (docs/THREAT_MODEL.md), said once.
  if (backend == Backend::kCpu && manifest.nvcc.empty())
    std::cerr << "labgrade: no nvcc here: the CPU backend cannot check that a submission compiles "
                 "the same lines as a GPU would (a source that tests LABKIT_EMU is not refused), "
                 "nor read its kernels' registers\n";
  return kExitGraded;
}

bool RequirementMet(Requirement require, const LabSpec& spec, const GradeResult& result) {
  if (require == Requirement::kNone) return true;
  for (const ExerciseResult& item : result.exercises) {
    const Exercise* ex = spec.FindExercise(item.id);
    if (item.status == GradeStatus::kGraderError) return false;
    const bool passed = item.status == GradeStatus::kPassed;
    const bool given = ex != nullptr && ex->given;
    if (require == Requirement::kFull && (!passed || item.unchecked)) return false;
    if (require == Requirement::kGivenOnly && passed != given) return false;
  }
  if (result.speed && result.speed->status == GradeStatus::kGraderError) return false;
  if (require == Requirement::kFull && result.speed &&
      result.speed->status != GradeStatus::kNotMeasured &&
      result.speed->score < result.speed->max_score)
    return false;
  return true;
}

int Check(const Manifest& manifest, const CheckCommand& options) {
  LabSpec spec;
  if (int status = LoadSpec(manifest, options.lab, spec); status != kExitGraded) return status;
  GradeRequest request;
  request.src_dir = options.src.empty() ? manifest.source_dir + "/starter/" + spec.id : options.src;
  if (!fs::is_directory(request.src_dir)) {
    std::cerr << "labgrade: the submission folder " << request.src_dir << " does not exist\n";
    return kExitMissing;
  }
  request.src_dir = SubmissionFolder(request.src_dir);
  request.submission_name = SubmissionNameOf(request.src_dir);
  if (int status = ChooseBackend(manifest, options.backend, request.backend); status != kExitGraded)
    return status;
  request.seed = options.seed ? *options.seed : std::random_device{}();
  std::cerr << "labgrade: grading " << request.src_dir << " for lab " << spec.id << " on the "
            << ToString(request.backend) << " backend, seed " << request.seed << " (--seed "
            << request.seed << " reproduces these inputs)\n";

  const bool own_work_dir = options.work_dir.empty();
  if (own_work_dir) {
    std::string pattern = (fs::temp_directory_path() / "labgrade-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::cerr << "labgrade: cannot create a scratch folder in " << fs::temp_directory_path()
                << "\n";
      return kExitMissing;
    }
    request.work_dir = pattern;
  } else {
    request.work_dir = fs::absolute(options.work_dir).string();
  }
  request.progress = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
  request.thread_sanitizer = options.thread_sanitizer;
  if (options.thread_sanitizer && !Traits(request.backend).thread_sanitizer)
    std::cerr << "labgrade: --tsan applies to the CPU backend only; on a GPU, "
                 "compute-sanitizer racecheck looks for races instead\n";

  SandboxedProcessRunner runner(
      GradingSandboxPolicy(manifest, spec.id, request.src_dir, request.work_dir,
                           {options.json_path, options.gradescope_dir}),
      &std::cerr);
  const GradeResult result = GradeSubmission(runner, manifest, spec, request);
  if (own_work_dir) fs::remove_all(request.work_dir);

  TerminalOptions terminal;
  terminal.color = options.color;
  terminal.unicode = options.color;
  std::cout << FormatTerminal(result, terminal);
  if (!options.json_path.empty())
    std::ofstream(options.json_path) << ToJson(result).dump(2) << "\n";
  if (!options.gradescope_dir.empty()) {
    fs::create_directories(options.gradescope_dir);
    std::ofstream(fs::path(options.gradescope_dir) / "results.json")
        << ToGradescope(result).dump(2) << "\n";
  }
  return RequirementMet(options.require, spec, result) ? kExitGraded : kExitRequirementNotMet;
}

int Grade(const Manifest& manifest, const BatchCommand& command) {
  LabSpec spec;
  if (int status = LoadSpec(manifest, command.lab, spec); status != kExitGraded) return status;
  BatchOptions options;
  options.submissions_dir = AbsoluteFolder(command.submissions);
  options.out_dir = AbsoluteFolder(command.out);
  options.kit_version = KitVersion();
  options.jobs = command.jobs > 0
                     ? command.jobs
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.regrade_all = command.regrade_all;
  options.regrade = command.regrade;
  options.progress_bar = isatty(STDERR_FILENO) != 0;
  if (int status = ChooseBackend(manifest, command.backend, options.backend); status != kExitGraded)
    return status;
  options.seed = command.seed ? *command.seed : std::random_device{}();
  options.seed_given = command.seed.has_value();
  std::cerr << "labgrade: grading " << command.submissions << " for lab " << spec.id << " on the "
            << ToString(options.backend) << " backend with " << options.jobs << " jobs (labkit "
            << options.kit_version << ")\n";
  SystemProcessRunner runner;
  auto counts = GradeBatch(runner, manifest, spec, options);
  if (!counts) {
    std::cerr << "labgrade: " << counts.error() << "\n";
    return kExitMissing;
  }
  std::cout << counts->graded << " graded, " << counts->not_graded << " not graded, "
            << counts->skipped << " already graded earlier; gradebook: " << options.out_dir
            << "/gradebook.csv, summary: " << options.out_dir << "/summary.txt\n";
  return counts->not_graded > 0 ? kExitRequirementNotMet : kExitGraded;
}

int Bundle(const Manifest& manifest, const BundleCommand& command) {
  LabSpec spec;
  if (int status = LoadSpec(manifest, command.lab, spec); status != kExitGraded) return status;
  const Status written = WriteGradescopeBundle(manifest, spec, command.out);
  if (!written) {
    std::cerr << "labgrade: " << written.error() << "\n";
    return kExitMissing;
  }
  std::cout << "wrote " << command.out << "/autograder.zip (upload it as the assignment's "
            << "autograder; see docs/GRADESCOPE.md)\n";
  return kExitGraded;
}

}  // namespace

int main(int argc, char** argv) {
  auto command = ParseCommandLine(argc, argv);
  if (!command) {
    std::cerr << "labgrade: " << command.error() << "\n\n" << UsageText();
    return kExitUsage;
  }
  if (command->kind == CliCommand::Kind::kHelp) {
    std::cout << (command->help.empty() ? UsageText() : command->help);
    return kExitGraded;
  }
  Manifest manifest;
  std::string error;
  const std::string manifest_path =
      command->manifest.empty() ? DefaultManifestPath() : command->manifest;
  if (!LoadManifest(manifest_path, manifest, error)) {
    std::cerr << "labgrade: " << error << "\n";
    return kExitMissing;
  }
  if (command->kind == CliCommand::Kind::kStarter) {
    LabSpec spec;
    if (int status = LoadSpec(manifest, command->starter.lab, spec); status != kExitGraded)
      return status;
    const Status synced = SyncStarter(manifest.source_dir, spec, command->starter.check_only);
    if (!synced) {
      std::cerr << "labgrade: " << synced.error() << "\n";
      return kExitRequirementNotMet;
    }
    if (!command->starter.check_only)
      std::cout << "wrote starter/" << spec.id << "/ from solutions/" << spec.id << "/\n";
    return kExitGraded;
  }
  try {
    if (command->kind == CliCommand::Kind::kGrade) return Grade(manifest, command->batch);
    if (command->kind == CliCommand::Kind::kBundle) return Bundle(manifest, command->bundle);
    return Check(manifest, command->check);
  } catch (const std::exception& e) {
    // A fault of the kit's own: said plainly, never an abort that looks like the student's crash.
    std::cerr << "labgrade: internal error (please report it with this submission): " << e.what()
              << "\n";
    return kExitInternalError;
  }
}
