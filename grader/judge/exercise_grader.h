// Correctness of the exercises: every case in both builds, on fresh random inputs and the lab's
// datasets, with the memory and race checkers of the backend, plus the technique check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend.h"
#include "datasets.h"
#include "harness_runner.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "resource_report.h"
#include "scoring.h"
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
  std::string kernels_json;                 // CPU backend: resource report file for the emulator
  std::optional<ResourceReport> resources;  // from nvcc, when it was available
  std::string resources_error;              // why `resources` is missing
  std::vector<Dataset> datasets;
  class ReferenceTimingCache* reference_cache = nullptr;  // shared across a batch; may be null
  // The submission's folder. Only needed for `technique.reads_constant` (its PTX is read); when
  // empty that check is skipped with a note.
  std::string src_dir;
  // Kernels whose PTX reads a __constant__ variable, read once on first need.
  std::optional<std::set<std::string>> constant_readers;
  std::string constant_readers_error;
  // CPU backend, --tsan: builds.at(Flavour::kThreadSanitizer) exists and every matmul exercise is
  // also run under it.
  bool thread_sanitizer = false;
  // The harness's "device" line, from the first run that passed (saves a process to ask for it).
  nlohmann::json device_line;
  // Some run's device line said kernels can reach host memory (DeviceInfo::pageable_memory_access).
  // Any line counts: a student's own program could only hide it in its own line, not in the kit's.
  bool kernels_reach_host_memory = false;
  // The NVIDIA driver's settings, whose RmProfilingAdminOnly says whether a counting run written
  // in the student's own program may claim that this machine cannot count (gpu_counters.h).
  std::string nvidia_params = "/proc/driver/nvidia/params";
  // Builds what is made only when a check needs it (the submission's PTX, and on a GPU the
  // emulator's build); may be null, and then those checks fail with a note of why.
  SubmissionBuilder* builder = nullptr;
  // `technique.measured`: counting runs made for several exercises in one process, by run id; a
  // part that counted and passed stands for that exercise's own run (exercise_stages.cpp).
  std::map<std::string, HarnessRun> shared_counts;
  // GPU backend: the submission built for the CPU emulator, made on first need to find the cause
  // of wrong values (emulator_diagnosis.h).
  std::optional<BuildOutcome> emulator_build;
  // The lab's starter, built on first need: whose fault a query harness's error is
  // (query_grader.cpp).
  std::optional<BuildOutcome> starter_build;
};

// The kinds of failure a later decision asks for (Finding::cause); the others are only grouped by.
inline constexpr char kWrongResultCause[] = "wrong_result";  // values the function computed
inline constexpr char kTechniqueCause[] = "technique";       // right values, not as taught
inline constexpr char kThreadOrderCause[] = "thread_order";  // CPU: other thread orders differ
inline constexpr char kDataRaceCause[] = "data_race";        // ThreadSanitizer or racecheck

// The verdict on one exercise: the Finding that decided it (a technique failure has the status
// kFailed and kTechniqueCause: its values were right in both builds).
struct ExerciseVerdict : Finding {
  std::string id;
  std::vector<std::string> notes;  // checks that could not run here, said plainly
  // A check that decides points (the technique) could not run here: a pass is not final.
  bool unchecked = false;
  // The build the deciding check ran on: kNoFma when the default build passed and the one without
  // fused multiply-add failed (its build or its cases; where it is the default build itself,
  // build_plan.h, the default build's cases judged by its rule); kDefault for every other check.
  Flavour flavour = Flavour::kDefault;
  // The builds whose cases ran (a failure in the default build leaves the other unrun); empty
  // where builds do not apply (a query exercise, the kit's own fault): the default build alone.
  std::vector<Flavour> builds_run;
};

ExerciseVerdict Verdict(const Exercise& exercise, Finding finding);
// The verdict on an exercise whose build failed: compile_error, the build's stage as the cause.
ExerciseVerdict BuildFailureVerdict(const Exercise& exercise, const BuildOutcome& build);

// Where the submission's PTX is made for the technique checks (SubmissionBuilder::Ptx).
inline std::string PtxDir(const GradeEnv& env) { return env.work_dir + "/ptx"; }

// Grades the exercises (matmul ones once per parameter set, when they have any), a verdict for
// each in their order. Check by check across all exercises, so that checks after the first can
// share one process among exercises (grader/harness_client/combined_run.h).
std::vector<ExerciseVerdict> GradeExercises(GradeEnv& env, const std::vector<Exercise>& exercises);

// What the harness request names as the exercise: "dynamic", or "dynamic?block_side=8&x=1" when it
// runs with parameters (common/harness/harness_main.cpp reads them back).
std::string HarnessExerciseId(const std::string& id, const ParamSet& params);

// Whether the exercise's function is recorded and its device work replayed (an exercise with a
// kernel), or called directly on the inputs (a host-side one): docs/THREAT_MODEL.md.
bool Replayed(const Exercise& exercise);

// The random and fixed cases an exercise is graded on (exposed for tests).
std::vector<MatrixCase> CasesFor(const GradeEnv& env, const Exercise& exercise);

}  // namespace labkit
