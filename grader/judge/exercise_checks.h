// The checks GradeExercises runs on one exercise, shared by the files that judge it (internal to
// the judge): exercise_grader.cpp reads a run's cases, technique_check.cpp checks the technique,
// race_checks.cpp looks for races, exercise_stages.cpp puts them in order across the exercises.
// Each returns what it found (a Finding, passed when nothing), its message made from its cause.
#pragma once

#include <string>
#include <vector>

#include "drawn_shapes.h"
#include "exercise_grader.h"
#include "memcheck_log.h"

namespace labkit {

// What every check's run of one exercise asks of the harness: the exercise (`run_id`, parameters
// included), replayed or not, each matrix in an allocation of its own (so the memory checkers see
// a read just past the end), the resource report for the emulator's occupancy API, the lab's time
// limit. Each check adds its own options to these.
HarnessOptions CheckRunOptions(const GradeEnv& env, const std::string& run_id, bool replay);

// Where `build` is another build of the default build's sources and backend (-fmad=false,
// ThreadSanitizer), its replays take the default build's recordings, translated
// (HarnessOptions::plans_from): one record process fewer for each.
void UseDefaultRecordings(const GradeEnv& env, const BuildOutcome& build, HarnessOptions& options);

// Every side of `s` a multiple of `tile` (false for a tile of 0: a lab without one).
bool IsTileMultiple(const Shape& s, int64_t tile);

// "case 16x16x16 (m x n x k)", or "dataset <name> (shape)", as messages name a case.
std::string CaseName(const MatrixCase& c);

// A case the record run left no plan for (case_status::kNotRecorded): the function itself crashed
// or hung on `name` (the case, for the message), or, the record process having ended well,
// something in the submission removed the record.
Finding NotRecorded(const HarnessRun& run, const std::string& name);

// The first problem over all cases of `run`, in case order; passed when every case ran and is
// right. Wrong values the function computed (not a crash, an error...) have kWrongResultCause;
// `failed_case`, when given, is set to the index of the case that failed.
Finding FirstFailure(GradeEnv& env, const Exercise& ex, const HarnessRun& run,
                     const std::vector<MatrixCase>& cases, ToleranceModel model, Flavour flavour,
                     const std::string& executable, std::size_t* failed_case = nullptr);

// The harness options of a counting run, on the default build as every other check's: counted by
// the emulator (CPU backend) or by the GPU's profiler in the replay (GPU), replayed.
HarnessOptions CountingOptions(const GradeEnv& env, const std::string& run_id);

// A counting run's race on shared memory (the CPU backend's record, emu's shared_races.h): the
// emulator's diagnostic of it, or null where the run found none.
const nlohmann::json* SharedRaceIn(const HarnessRun& run);

// `technique.measured`: passed when the counted run's accesses satisfy the rule; `why_not` is set
// when a GPU could not be counted here (the caller then judges what the kernels declare).
// `cases` are the exercise's, in the order its own run ran them.
Finding MeasuredFailure(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                        const std::string& dir, const std::vector<MatrixCase>& cases,
                        std::string& why_not);

// Whether the kernels the function launched in `run` use the technique the exercise teaches
// (failed with kTechniqueCause when not; a grader error when the kit could not count them);
// `notes` and `unchecked` say what could not be checked here. `cases` are those of `run`.
Finding TechniqueFailure(GradeEnv& env, const Exercise& ex, const std::string& run_id,
                         const std::string& dir, const HarnessRun& run,
                         const std::vector<MatrixCase>& cases, std::vector<std::string>& notes,
                         bool& unchecked);

// CPU backend: a result that depends on the thread order (kThreadOrderCause), and with --tsan
// the racing lines (kDataRaceCause); a run in another order that failed otherwise gives its own
// finding.
Finding CpuRaceFailure(GradeEnv& env, const Exercise& ex, const std::vector<MatrixCase>& cases,
                       const HarnessRun& forward, const std::string& executable,
                       const std::string& dir, std::vector<std::string>* notes);

// GPU backend: the cases a compute-sanitizer `tool` runs on, and the harness options for it.
std::vector<MatrixCase> SanitizerCases(const std::string& tool,
                                       const std::vector<MatrixCase>& cases);
HarnessOptions SanitizerOptions(const std::string& run_id, const std::string& tool, bool replay);

// What a run under `tool` found (failed: kDataRaceCause for racecheck, "memcheck" for memcheck),
// that the tool could not run (grader_error, "sanitizer_unavailable") or did not finish
// (grader_error, "sanitizer_incomplete"), or passed. Found or not is compute-sanitizer's exit
// status (sanitizer_end.h); the log only words the finding. `cases`, those of the run, give the
// shapes with which memcheck's message names a matrix.
Finding SanitizerFinding(const HarnessRun& run, const std::string& tool,
                         const std::vector<MatrixCase>& cases = {});

// The harness's matrices in `run`, for naming the one an address of memcheck's falls next to;
// shapes and case names from `cases` (by id). The case memcheck's first error came from comes
// first: the last case that allocated its matrices and did not end well. Memcheck's error is
// sticky, so no later case gets as far as allocating; an earlier case can fail without a memory
// error (a launch refused for its configuration), and the allocator hands its addresses out again.
std::vector<NamedBuffer> HarnessBuffers(const HarnessRun& run,
                                        const std::vector<MatrixCase>& cases);

// GPU backend: the default build of one exercise under each of `tools`; passed when all are clean.
Finding SanitizerFailure(GradeEnv& env, const Exercise& ex, const std::vector<MatrixCase>& cases,
                         const std::string& executable, const std::string& dir,
                         const std::vector<std::string>& tools);

// The backend's race detector on a run whose values were wrong: a race it found, or passed.
Finding RaceBehindWrongValues(GradeEnv& env, const Exercise& ex,
                              const std::vector<MatrixCase>& cases, const HarnessRun& forward,
                              const std::string& executable, const std::string& dir);

}  // namespace labkit
