// Correctness of one exercise: every case in both builds, on fresh random inputs and the lab's
// datasets, with the memory and race checkers of the backend, plus the technique check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "datasets.h"
#include "harness_runner.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "resource_report.h"
#include "submission_build.h"

namespace labkit {

// Everything grading one submission shares between its exercises.
struct GradeEnv {
  ProcessRunner& runner;
  const Manifest& manifest;
  const LabSpec& spec;
  Backend backend;
  uint64_t seed;
  std::string work_dir;
  std::map<Flavour, BuildOutcome> builds;
  std::string kernels_json;                // CPU backend: resource report file for the emulator
  std::optional<ResourceReport> resources; // from nvcc, when it was available
  std::string resources_error;             // why `resources` is missing
  std::vector<Dataset> datasets;
  class ReferenceTimingCache* reference_cache = nullptr;  // shared across a batch; may be null
};

struct ExerciseVerdict {
  std::string id;
  // passed | failed | compile_error | crashed | timeout | technique | grader_error
  std::string status;
  std::string message;  // for the student; empty when passed
  std::vector<std::string> notes;  // checks that could not run here, said plainly
  bool passed() const { return status == "passed"; }
};

ExerciseVerdict GradeExercise(GradeEnv& env, const Exercise& exercise);

// The random and fixed cases an exercise is graded on (exposed for tests).
std::vector<MatrixCase> CasesFor(const GradeEnv& env, const Exercise& exercise);

}  // namespace labkit
