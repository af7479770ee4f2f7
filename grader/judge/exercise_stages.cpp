// GradeExercises (exercise_grader.h): the checks in their order, check by check across the
// exercises, so that every check after the first may share one process among them.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "combined_run.h"
#include "device_line.h"
#include "emulator_diagnosis.h"
#include "exercise_checks.h"
#include "exercise_grader.h"
#include "query_grader.h"

namespace labkit {

namespace {

// A run of `run`'s cases on `build`, from the default build's recordings (UseDefaultRecordings).
HarnessOptions CaseRunOptions(const GradeEnv& env, const BuildOutcome& build, const Exercise& run) {
  HarnessOptions options = CheckRunOptions(env, run.id, Replayed(run));
  options.exact_layout = Traits(env.backend).exact_allocations;
  UseDefaultRecordings(env, build, options);
  return options;
}

void RememberDevice(GradeEnv& env, const HarnessRun& run) {
  if (!env.device_line.is_object() && run.device.is_object()) env.device_line = run.device;
  if (DeviceFromLine(run.device).pageable_memory_access == 1) env.kernels_reach_host_memory = true;
}

// One run of a matmul exercise over all its cases: `ex` names the cases and the verdict, `run` is
// what the harness is asked to run (the same exercise, with parameters in its id when it has any).
struct MatmulRun {
  const Exercise* ex = nullptr;
  Exercise run;
  std::string dir;
  std::vector<MatrixCase> cases;
  HarnessRun forward;                      // the default build's run, once it passed
  bool forward_combined = false;  // `forward` is its part of the default build's combined run
  std::optional<ExerciseVerdict> verdict;  // set by the first check that fails
  std::vector<std::string> notes;
  std::vector<Flavour> builds_run;  // the builds whose stage this run reached
};

std::vector<MatmulRun*> ReplayedRuns(const std::vector<MatmulRun*>& runs) {
  std::vector<MatmulRun*> replayed;
  for (MatmulRun* r : runs)
    if (Replayed(r->run)) replayed.push_back(r);
  return replayed;
}

std::vector<MatmulRun*> StillOpen(std::vector<MatmulRun>& runs) {
  std::vector<MatmulRun*> open;
  for (MatmulRun& r : runs)
    if (!r.verdict) open.push_back(&r);
  return open;
}

// The default build's first record run records every case that later runs of that build will
// replay, so that they need no record process of their own (on a GPU shared by a batch, each
// process is a CUDA context that queues behind the rest): every exercise's cases (the counted
// cases of `technique.measured` among them) and, on a GPU, the timed shape. Shapes only: a record
// run reads no inputs.
std::vector<MatrixCase> CasesToRecordFirst(const GradeEnv& env,
                                           const std::vector<MatmulRun*>& runs, Flavour flavour) {
  std::vector<MatrixCase> shapes;
  if (flavour != Flavour::kDefault) return shapes;
  for (const MatmulRun* r : runs) {
    if (!Replayed(r->run)) continue;
    // The counted case of `technique.measured` is one of them (DrawnCases), counted in the default
    // build itself on either backend.
    for (const MatrixCase& c : r->cases) shapes.push_back({c.id, c.shape, {}, {}, r->run.id});
    // The timed shape, which the speed item replays (speed_grader.cpp), where kernels are timed.
    if (Traits(env.backend).times_kernels && env.spec.speed && env.spec.speed->exercise == r->run.id)
      shapes.push_back({"timed", env.spec.speed->size, {}, {}, r->run.id});
  }
  return shapes;
}

// The verdict on one build's run of `r`, or nullopt when every case ran and is right. With
// `diagnose_races`, wrong values are first put to the backend's race detector.
std::optional<ExerciseVerdict> JudgeFlavour(GradeEnv& env, const MatmulRun& r, Flavour flavour,
                                            const HarnessRun& harness_run, bool diagnose_races) {
  const ToleranceModel model =
      flavour == Flavour::kDefault ? env.spec.tolerance.model : NofmaModel(env.spec, *r.ex);
  const std::string& executable = env.builds.at(flavour).executable;
  std::size_t failed = 0;
  Finding failure =
      FirstFailure(env, *r.ex, harness_run, r.cases, model, flavour, executable, &failed);
  if (failure.passed()) return std::nullopt;
  bool emulator_missing = false;
  if (diagnose_races && failure.cause == kWrongResultCause) {
    Finding race = RaceBehindWrongValues(env, r.run, r.cases, harness_run, executable, r.dir);
    if (!race.passed()) {
      race.message += "\n\nWhat came out:\n" + failure.message;
      return Verdict(*r.ex, std::move(race));
    }
    // What a GPU cannot check (a barrier only some threads reach, a read of memory never
    // written), the emulator can: the default build's cases are run there too.
    if (flavour == Flavour::kDefault) {
      failure.message = WithCauseFromEmulator(env, r.run, r.dir + "/emulator", r.cases,
                                              harness_run, failed, failure.message);
      emulator_missing = env.emulator_build && !env.emulator_build->ok;
    }
  }
  ExerciseVerdict verdict = Verdict(*r.ex, std::move(failure));
  // Said where an instructor sees it: on a machine whose CPU backend cannot build (no emulator in
  // this build, a compiler the sandbox cannot run), every such message lacks the cause the
  // emulator would have found.
  if (emulator_missing)
    verdict.notes.push_back("cause not looked for on the CPU emulator: it could not build the "
                            "submission here (" + env.emulator_build->stage + ")");
  return verdict;
}

// Marks, in `groups` (a combined run's), the counted case of each of `runs` that is judged by
// `technique.measured`, and returns the ids of the runs it marked.
std::set<std::string> MarkCountedCases(const GradeEnv& env, const std::vector<MatmulRun*>& runs,
                                       std::vector<ExerciseCases>& groups) {
  std::set<std::string> marked;
  for (const MatmulRun* r : runs) {
    if (!r->ex->technique || !r->ex->technique->measured) continue;
    const std::string counted = CountedCase(env, *r->ex, r->run.id).id;
    for (ExerciseCases& group : groups)
      if (group.run_id == r->run.id) {
        for (MatrixCase& c : group.cases) c.counted = c.id == counted;
        marked.insert(r->run.id);
      }
  }
  return marked;
}

// `flavour`'s build is the default build itself (BuildOutcome::reuses_default: the same program,
// build_plan.h): each open run's default-build run, already made, judged by `flavour`'s rule.
void ReusedFlavourStage(GradeEnv& env, const std::vector<MatmulRun*>& runs, Flavour flavour) {
  for (MatmulRun* run : runs) {
    run->builds_run.push_back(flavour);
    if (auto failed = JudgeFlavour(env, *run, flavour, run->forward, true)) {
      run->verdict = std::move(*failed);
      run->verdict->flavour = flavour;
    }
  }
}

// Every open run on `flavour`'s build. With `combine`, first all in one process, where only a
// pass is taken as it stands: a failure there may be another exercise's doing, so anything that
// did not pass runs again in a process of its own, which also gives the message.
// `sequence`, where given, is set to the combined run's groups (empty when there was none).
void FlavourStage(GradeEnv& env, const std::vector<MatmulRun*>& runs, Flavour flavour, bool combine,
                  std::vector<ExerciseCases>* sequence = nullptr) {
  const BuildOutcome& build = env.builds.at(flavour);
  if (flavour != Flavour::kDefault && build.ok && build.reuses_default)
    return ReusedFlavourStage(env, runs, flavour);
  // Only replayed exercises share a process: a pass is taken from it as it stands, and a host-side
  // function's own code must not run beside them.
  const std::vector<MatmulRun*> replayed = ReplayedRuns(runs);
  std::map<const MatmulRun*, HarnessRun> shared;
  const std::vector<MatrixCase> record_also = CasesToRecordFirst(env, runs, flavour);
  std::set<std::string> counted_here;  // the runs whose counted case the combined run counted
  if (build.ok && combine && replayed.size() >= 2) {
    std::vector<ExerciseCases> groups;
    for (const MatmulRun* r : replayed) groups.push_back({r->run.id, r->cases});
    HarnessOptions options = CaseRunOptions(env, build, replayed.front()->run);
    options.record_also = record_also;
    // CPU backend: the counted cases are counted right here, in the run whose values are judged
    // (SharedCountingRun says why they are counted where the other cases run); a GPU counts in a
    // run of its own, with its profiler.
    if (flavour == Flavour::kDefault && Traits(env.backend).emulator_counts) {
      counted_here = MarkCountedCases(env, replayed, groups);
      options.count_accesses = !counted_here.empty();
    }
    std::vector<HarnessRun> parts =
        RunCombined(env.runner, build.executable, env.work_dir + "/combined_" + ToString(flavour),
                    options, groups);
    for (std::size_t i = 0; i < parts.size() && i < replayed.size(); ++i)
      shared[replayed[i]] = std::move(parts[i]);
    if (sequence != nullptr) *sequence = std::move(groups);
  }
  for (MatmulRun* run : runs) {
    MatmulRun& r = *run;
    r.builds_run.push_back(flavour);
    if (!build.ok) {
      r.verdict = BuildFailureVerdict(*r.ex, build);
      r.verdict->flavour = flavour;
      continue;
    }
    HarnessRun harness_run;
    const auto own = shared.find(run);
    if (own != shared.end() && !JudgeFlavour(env, r, flavour, own->second, false)) {
      harness_run = std::move(own->second);
      if (flavour == Flavour::kDefault) r.forward_combined = true;
      // Its counts, only where its values passed in that very run.
      if (counted_here.count(r.run.id)) env.shared_counts[r.run.id] = harness_run;
    } else {
      HarnessOptions options = CaseRunOptions(env, build, r.run);
      options.record_also = record_also;
      harness_run = RunHarness(env.runner, build.executable, r.dir + "/" + ToString(flavour),
                               options, r.cases);
      if (auto failed = JudgeFlavour(env, r, flavour, harness_run, true)) {
        r.verdict = std::move(*failed);
        r.verdict->flavour = flavour;
        continue;
      }
    }
    RememberDevice(env, harness_run);
    if (flavour == Flavour::kDefault) r.forward = std::move(harness_run);
  }
}

// GPU backend: memcheck, then racecheck, on the default build. All open runs in one process per
// tool first; a clean end there clears them all, anything else is run again exercise by exercise
// so that a finding is charged to the exercise that made it.
void SanitizerStage(GradeEnv& env, std::vector<MatmulRun>& runs) {
  const std::string& executable = env.builds.at(Flavour::kDefault).executable;
  for (const std::string tool : {"memcheck", "racecheck"}) {
    const std::vector<MatmulRun*> open = StillOpen(runs);
    const std::vector<MatmulRun*> replayed = ReplayedRuns(open);
    if (replayed.size() >= 2 && replayed.size() == open.size()) {
      std::vector<ExerciseCases> groups;
      for (const MatmulRun* r : open) groups.push_back({r->run.id, SanitizerCases(tool, r->cases)});
      const std::vector<HarnessRun> parts =
          RunCombined(env.runner, executable, env.work_dir + "/combined_" + tool,
                      SanitizerOptions(open.front()->run.id, tool, true), groups);
      // Each part holds its own cases: all of them must have run clean.
      if (std::all_of(parts.begin(), parts.end(), [&](const HarnessRun& part) {
            return SanitizerFinding(part, tool).passed();
          }))
        continue;
    }
    for (MatmulRun* r : open) {
      Finding finding = SanitizerFailure(env, r->run, r->cases, executable, r->dir, {tool});
      if (!finding.passed()) r->verdict = Verdict(*r->ex, std::move(finding));
    }
  }
}

// CPU backend: other thread orders between barriers (and with --tsan, ThreadSanitizer).
void ThreadOrderStage(GradeEnv& env, std::vector<MatmulRun>& runs) {
  const std::string& executable = env.builds.at(Flavour::kDefault).executable;
  for (MatmulRun* r : StillOpen(runs)) {
    Finding failure =
        CpuRaceFailure(env, r->run, r->cases, r->forward, executable, r->dir, &r->notes);
    if (!failure.passed()) r->verdict = Verdict(*r->ex, std::move(failure));
  }
}

// `technique.measured`: the counted cases of every open exercise that passed in the default
// build's combined run, counted in one more run of that very sequence, every exercise's cases in
// the same order, only the counted ones counted (on a GPU, by the GPU's profiler, which the
// batch's jobs take one launch at a time). A kernel then cannot tell the counted launch by what
// ran before it (a launch counter in a __device__ variable or, on the CPU backend, a host one):
// it comes after the same launches as in the run whose values passed. The parts are left in
// env.shared_counts for MeasuredFailure to take where they passed.
void SharedCountingRun(GradeEnv& env, const std::vector<MatmulRun*>& open,
                       std::vector<ExerciseCases> sequence) {
  std::vector<MatmulRun*> to_count;
  for (MatmulRun* r : open)  // counted already where the combined run counted (FlavourStage)
    if (r->forward_combined && !env.shared_counts.count(r->run.id)) to_count.push_back(r);
  const std::set<std::string> measured = MarkCountedCases(env, to_count, sequence);
  const BuildOutcome& build = env.builds.at(Flavour::kDefault);
  if (measured.empty() || !build.ok) return;
  HarnessOptions options = CountingOptions(env, sequence.front().run_id);
  std::vector<HarnessRun> parts = RunCombined(
      env.runner, build.executable, env.work_dir + "/combined_counting", options, sequence);
  for (std::size_t i = 0; i < parts.size() && i < sequence.size(); ++i)
    if (measured.count(sequence[i].run_id))
      env.shared_counts[sequence[i].run_id] = std::move(parts[i]);
}

void TechniqueStage(GradeEnv& env, std::vector<MatmulRun>& runs,
                    std::vector<ExerciseCases> default_sequence) {
  SharedCountingRun(env, StillOpen(runs), std::move(default_sequence));
  for (MatmulRun* r : StillOpen(runs)) {
    std::vector<std::string> notes = r->notes;
    bool unchecked = false;
    ExerciseVerdict verdict = Verdict(
        *r->ex,
        TechniqueFailure(env, *r->ex, r->run.id, r->dir, r->forward, r->cases, notes, unchecked));
    if (verdict.passed()) {  // what could not be checked matters to a pass only
      verdict.notes = std::move(notes);
      verdict.unchecked = unchecked;
    }
    r->verdict = std::move(verdict);
  }
}

// The runs of every matmul exercise: one, or one per parameter set.
std::vector<MatmulRun> PlanRuns(const GradeEnv& env, const std::vector<Exercise>& exercises) {
  std::vector<MatmulRun> runs;
  for (const Exercise& ex : exercises) {
    if (ex.kind == ExerciseKind::kQuery) continue;
    const std::vector<MatrixCase> cases = CasesFor(env, ex);
    const std::string dir = env.work_dir + "/" + ex.id;
    if (ex.params.empty()) {
      runs.push_back({&ex, ex, dir, cases});
      continue;
    }
    for (std::size_t i = 0; i < ex.params.size(); ++i) {
      Exercise run = ex;
      run.id = HarnessExerciseId(ex.id, ex.params[i]);
      runs.push_back({&ex, run, dir + "/p" + std::to_string(i), cases});
    }
  }
  return runs;
}

// An exercise with parameter sets: the first set that failed decides, and says which it was.
ExerciseVerdict VerdictOf(const Exercise& ex, const std::vector<MatmulRun>& runs) {
  ExerciseVerdict verdict =
      Verdict(ex, {GradeStatus::kGraderError, "not_run", "the exercise was not run"});
  std::size_t set = 0;
  for (const MatmulRun& r : runs) {
    if (r.ex != &ex) continue;
    verdict = *r.verdict;
    verdict.builds_run = r.builds_run;
    if (!verdict.passed()) {
      if (!ex.params.empty())
        verdict.message = "with " + ParamText(ex.params[set]) + ": " + verdict.message;
      return verdict;
    }
    ++set;
  }
  return verdict;
}

}  // namespace

std::string HarnessExerciseId(const std::string& id, const ParamSet& params) {
  std::string text = id;
  for (const auto& [name, value] : params)
    text += (text.size() == id.size() ? "?" : "&") + name + "=" + std::to_string(value);
  return text;
}

std::vector<ExerciseVerdict> GradeExercises(GradeEnv& env, const std::vector<Exercise>& exercises) {
  std::vector<MatmulRun> runs = PlanRuns(env, exercises);
  // Every build's replays share one process among the exercises where they can (each process
  // start is a CUDA context, which queues behind the others' on a GPU shared by a class). The
  // replay puts the student's __constant__/__device__ variables and kernel attributes back as the
  // program started between exercises (common/harness/initial_device_state.h), so what one
  // exercise's plan left there cannot make another pass; anything short of a pass is run again
  // alone, which also words its message.
  std::vector<ExerciseCases> default_sequence;
  FlavourStage(env, StillOpen(runs), Flavour::kDefault, /*combine=*/true, &default_sequence);
  FlavourStage(env, StillOpen(runs), Flavour::kNoFma, /*combine=*/true);
  if (Traits(env.backend).races_by_thread_order)
    ThreadOrderStage(env, runs);
  else
    SanitizerStage(env, runs);
  TechniqueStage(env, runs, std::move(default_sequence));

  std::vector<ExerciseVerdict> verdicts;
  for (const Exercise& ex : exercises)
    verdicts.push_back(ex.kind == ExerciseKind::kQuery ? GradeQueryExercise(env, ex)
                                                       : VerdictOf(ex, runs));
  return verdicts;
}

}  // namespace labkit
