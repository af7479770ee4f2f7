#include "recorded_plans.h"

#include <sys/stat.h>

#include <filesystem>
#include <mutex>
#include <sstream>

#include "harness_request.h"
#include "harness_response.h"
#include "plan_translation.h"
#include "replay_plan.h"
#include "report_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::string> Recording::PlanFor(const std::string& key) const {
  const auto it = plan_ids.find(key);
  if (it == plan_ids.end()) return std::nullopt;
  if (finished || fs::exists(dir + it->second + ".plan")) return it->second;
  return std::nullopt;
}

namespace {

// The program as built (a later grading may rebuild it at the same path) and what the record run
// is told that changes what the function does: its plans hold nothing else.
std::string ProgramKey(const std::string& executable, const HarnessOptions& options) {
  struct stat st {};
  ::stat(executable.c_str(), &st);
  std::ostringstream key;
  key << executable << '|' << st.st_ino << '|' << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec
      << '|' << options.emu_kernels_json;
  return key.str();
}

// A plan depends on the exercise the function is called for and the case's shape, not on the
// case's id, its inputs (the record run has none) or the layout of the harness's matrices (a plan
// names them by region). So the sanitizers' runs, which ask for some of the cases of the first
// runs under other ids, replay what those recorded.
std::string PlanKey(const HarnessOptions& options, const MatrixCase& c) {
  std::ostringstream key;
  key << (c.exercise.empty() ? options.exercise : c.exercise) << '|' << c.shape.m << 'x'
      << c.shape.n << 'x' << c.shape.k;
  return key.str();
}

// The timed call is a call at the timed shape like any other: a case of that shape recorded
// earlier (record_also) serves it.
std::string TimingPlanKey(const HarnessOptions& options) {
  return PlanKey(options, MatrixCase{"timing", options.timing->shape, {}, {}, options.exercise});
}

// The plans for `cases` (and the timed case) from `recordings`, or nullopt when one is held by
// none (with `partial`, what they hold, spoken for by the first recording when nothing is). The
// emulator's notes on a recorded case are handed on under the replayed case's id.
std::optional<RecordedPlans> FindPlans(const std::vector<Recording>& recordings,
                                       const HarnessOptions& options,
                                       const std::vector<MatrixCase>& cases, bool partial) {
  std::vector<std::pair<std::string, std::string>> wanted;  // replayed id, key
  for (const MatrixCase& c : cases) wanted.emplace_back(c.id, PlanKey(options, c));
  if (options.timing != nullptr) wanted.emplace_back("timing", TimingPlanKey(options));
  RecordedPlans found;
  const Recording* speaker = nullptr;
  // The emulator's notes on `recorded` in `from`, handed on as `replayed`'s.
  auto take_notes = [&](const Recording& from, const std::string& recorded,
                        const std::string& replayed) {
    for (const json& d : from.diagnostics)
      if (TextField(d, "case") == recorded) {
        json own = d;
        own["case"] = replayed;
        found.record.diagnostics.push_back(std::move(own));
      }
  };
  std::vector<std::pair<std::string, std::string>> unserved;  // replayed id, key
  for (const auto& [replayed, key] : wanted) {
    const Recording* from = nullptr;
    std::optional<std::string> recorded;
    for (const Recording& r : recordings)
      if (fs::exists(r.dir) && (recorded = r.PlanFor(key))) {
        from = &r;
        break;
      }
    if (from == nullptr) {
      if (!partial) return std::nullopt;
      unserved.emplace_back(replayed, key);
      continue;
    }
    found.sources.emplace_back(replayed, from->dir + *recorded + ".plan");
    if (speaker == nullptr || (speaker->finished && !from->finished)) speaker = from;
    take_notes(*from, *recorded, replayed);
  }
  if (speaker == nullptr && (!partial || recordings.empty())) return std::nullopt;
  if (speaker == nullptr) speaker = &recordings.front();
  // A case the function died on has no plan, but what the emulator saw there explains the death.
  for (const auto& [replayed, key] : unserved)
    if (const auto it = speaker->plan_ids.find(key); it != speaker->plan_ids.end())
      take_notes(*speaker, it->second, replayed);
  found.record.dir = speaker->dir;
  found.record.process = speaker->process;
  found.record.finished = speaker->finished;
  found.record.memory_refused = speaker->memory_refused;
  for (const json& d : speaker->diagnostics)
    if (TextField(d, "case").empty()) found.record.diagnostics.push_back(d);
  return found;
}

// The recording `from` (of another build of the same sources) made this program's: the plan of
// every case it was asked for translated into a folder of this program's (plan_translation.h),
// the rest as it was. Other files the record process left there are not looked at. nullopt when
// a plan it wrote cannot be translated: this program then records for itself.
std::optional<Recording> TranslatedRecording(const Recording& from, const std::string& dir,
                                             const PlanTranslation& translation) {
  Recording own = from;
  own.dir = dir;
  fs::remove_all(own.dir);
  fs::create_directories(own.dir);
  for (const auto& [key, id] : from.plan_ids) {
    const std::string plan = from.dir + id + ".plan";  // replay_plan.h PlanFileName
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(plan, ec))) continue;  // the replay reports it missing
    if (!TranslatePlanFile(translation, plan, own.dir + id + ".plan")) return std::nullopt;
  }
  return own;
}

}  // namespace

RecordedPlans Record(ProcessRunner& runner, const std::string& executable, const std::string& dir,
                     const HarnessOptions& options, const std::vector<MatrixCase>& cases) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Recording>> done;
  const std::string program = ProgramKey(executable, options);
  const std::string record_dir = dir.substr(0, dir.size() - 1) + ".record/";
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = FindPlans(done[program], options, cases, false)) return std::move(*found);
    // Another build's recordings, translated, where they hold every case: also those of a record
    // run that died later, on a case this run does not ask for. Its plans are the ones the
    // default build replayed; a record run of this build's own would let a function that died on
    // purpose (on a case it could spare) behave differently here (r7_failed_rows_tells_builds_apart).
    const auto other = options.plans_from.empty()
                           ? done.end()
                           : done.find(ProgramKey(options.plans_from, options));
    std::optional<PlanTranslation> translation;
    if (other != done.end()) translation = PlanTranslation::Between(options.plans_from, executable);
    for (std::size_t i = 0; translation && i < other->second.size(); ++i) {
      const Recording& r = other->second[i];
      if (!FindPlans({r}, options, cases, false)) continue;
      if (std::optional<Recording> own = TranslatedRecording(r, record_dir, *translation)) {
        done[program].push_back(std::move(*own));
        return std::move(*FindPlans(done[program], options, cases, false));
      }
    }
  }
  Recording recording;
  recording.dir = record_dir;
  fs::remove_all(recording.dir);
  fs::create_directories(recording.dir);
  HarnessOptions record = options;
  record.sanitizer_tool.clear();
  record.emu_order.clear();
  record.thread_sanitizer = false;
  record.gpu_counters = false;
  record.count_accesses = false;  // the function itself runs there: no run's check is said to it
  std::vector<MatrixCase> asked = cases;
  for (const MatrixCase& c : cases) recording.plan_ids.emplace(PlanKey(options, c), c.id);
  for (const MatrixCase& extra : options.record_also) {
    if (recording.plan_ids.count(PlanKey(options, extra)) > 0) continue;
    MatrixCase shape_only{"also" + std::to_string(asked.size()) + "_" + extra.id,
                          extra.shape,
                          {},
                          {},
                          extra.exercise};
    recording.plan_ids.emplace(PlanKey(options, shape_only), shape_only.id);
    asked.push_back(std::move(shape_only));
  }
  if (options.timing != nullptr) recording.plan_ids.emplace(TimingPlanKey(options), "timing");
  if (const Status written = WriteRequest(recording.dir, record, asked, false); !written)
    recording.process.start_error = written.error();
  else
    recording.process = runner.Run(HarnessCommand(executable, recording.dir, record, "--record"));
  recording.diagnostics = ReadJsonObjectLines(recording.dir + "emu_report.jsonl");
  for (const json& line : ReadJsonObjectLines(recording.dir + "response.jsonl")) {
    recording.finished = recording.finished || TextField(line, "type") == "done";
    if (!recording.memory_refused) recording.memory_refused = ParseMemoryRefusal(line);
  }
  // The cases it got to; the others are reported as not recorded, with this record's end.
  std::optional<RecordedPlans> found = FindPlans({recording}, options, cases, true);
  // A record the grader could not start is its own fault: the next check tries again.
  std::lock_guard<std::mutex> lock(mutex);
  if (recording.process.started) done[program].push_back(std::move(recording));
  return std::move(*found);
}

void CopyPlans(const RecordedPlans& recorded, const std::string& dir,
               const std::vector<MatrixCase>& cases, bool timing) {
  for (const MatrixCase& c : cases) fs::remove(dir + c.id + ".plan");  // replay_plan.h PlanFileName
  if (timing) fs::remove(dir + "timing.plan");
  for (const auto& [replayed, path] : recorded.sources) {
    const auto plan = ReadUntrustedFile(path, replay::kMaxPlanBytes);
    if (!plan.ok()) continue;  // the replay reports the case as not recorded
    // A plan that cannot be written (a full disk) is missing in the replay, which then reports
    // the case as not recorded: nothing more to do here.
    (void)WriteUntrustedFile(dir + replayed + ".plan", *plan);
  }
}

}  // namespace labkit
