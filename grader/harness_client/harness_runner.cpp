#include "harness_runner.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "gpu_counters.h"
#include "inputs.h"
#include "report_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A log the tools wrote where the student's code can write: bounded, never a FIFO or a link.
std::string ReadText(const std::string& path) {
  auto text = ReadUntrustedFile(path, kMaxReportBytes);
  return text ? *text : "";
}

// ThreadSanitizer writes its reports to <log_path>.<pid>, one file per process.
std::vector<std::string> ThreadSanitizerLogs(const std::string& dir) {
  std::vector<std::string> logs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename().string().rfind("tsan.", 0) == 0) logs.push_back(entry.path());
  std::sort(logs.begin(), logs.end());
  return logs;
}

std::string ReadThreadSanitizerLogs(const std::string& dir) {
  std::string text;
  for (const std::string& log : ThreadSanitizerLogs(dir)) text += ReadText(log);
  return text;
}

}  // namespace

std::string FindCudaTool(const std::string& name) {
  for (const std::string& dir : std::vector<std::string>{
           "/usr/local/cuda/bin", "/usr/local/cuda/" + name, "/opt/cuda/bin", "/usr/bin"}) {
    const std::string candidate = dir + "/" + name;
    if (fs::exists(candidate)) return candidate;
  }
  return name;
}

namespace {

// Writes the request and its input matrices; a failure (a full disk) is the kit's, not the
// student's, and comes back as the reason.
// `with_inputs` false: a record run's request, which names the cases' shapes only (the function
// is called there on values of the harness's own).
Status WriteRequest(const std::string& dir, const HarnessOptions& options,
                    const std::vector<MatrixCase>& cases, bool with_inputs = true,
                    const json& student_image = nullptr) {
  Status written;
  auto write = [&](const std::string& name, const std::vector<float>& values) {
    if (written && with_inputs) written = WriteFloatFile(dir + name, values);
  };
  json request = {{"exercise", options.exercise},
                  {"layout", options.exact_layout ? "exact" : "guarded"},
                  {"cases", json::array()},
                  {"timing", nullptr},
                  {"occupancy_probe", options.occupancy_probe}};
  for (const MatrixCase& c : cases) {
    write(c.id + ".A.f32", c.A);
    write(c.id + ".B.f32", c.B);
    fs::remove(dir + c.id + ".C.f32");
    json entry = {{"id", c.id},
                  {"m", c.shape.m},
                  {"n", c.shape.n},
                  {"k", c.shape.k},
                  {"inputs", {{"A", c.id + ".A.f32"}, {"B", c.id + ".B.f32"}}},
                  {"outputs", {{"C", c.id + ".C.f32"}}}};
    if (!c.exercise.empty()) entry["exercise"] = c.exercise;
    request["cases"].push_back(std::move(entry));
  }
  if (options.timing != nullptr) {
    const TimingSpec& t = *options.timing;
    json sets = json::array(), outputs = json::array();
    for (std::size_t s = 0; s < t.A_sets.size(); ++s) {
      const std::string stem = "t" + std::to_string(s);
      write(stem + ".A.f32", t.A_sets[s]);
      write(stem + ".B.f32", t.B_sets[s]);
      fs::remove(dir + stem + ".C.f32");
      sets.push_back({{"A", stem + ".A.f32"}, {"B", stem + ".B.f32"}});
      outputs.push_back(stem + ".C.f32");
    }
    request["timing"] = {{"m", t.shape.m},
                         {"n", t.shape.n},
                         {"k", t.shape.k},
                         {"input_sets", sets},
                         {"outputs", outputs},
                         {"min_reps", t.reps.min},
                         {"max_reps", t.reps.max},
                         {"max_seconds", t.reps.max_seconds},
                         {"target_spread", t.reps.target_spread}};
  }
  if (!student_image.is_null()) request["student_image"] = student_image;
  if (!written) return written;
  return WriteUntrustedFile(dir + "request.json", request.dump(1));
}

// `mode`: "", "--record" or "--replay" (common/harness/harness_main.cpp).
Command HarnessCommand(const std::string& executable, const std::string& dir,
                       const HarnessOptions& options, const std::string& mode = "") {
  Command cmd;
  cmd.cwd = dir;
  cmd.timeout_seconds = options.timeout_seconds;
  cmd.output_limit = options.output_limit;
  cmd.gpu = options.timing != nullptr && mode != "--record" ? GpuUse::kExclusive : GpuUse::kShared;
  std::vector<std::string> harness = {executable, dir + "request.json", dir + "response.jsonl"};
  if (!mode.empty()) harness.insert(harness.begin() + 1, mode);
  if (options.gpu_counters) {
    cmd.argv = CounterCommandPrefix(FindCudaTool("ncu"), dir + "counters.csv");
    cmd.tool_lock_dir = kCounterLockDir;  // one GPU's counters serve one session at a time
  } else if (!options.sanitizer_tool.empty()) {
    cmd.argv = {FindCudaTool("compute-sanitizer"),
                "--tool",
                options.sanitizer_tool,
                "--log-file",
                dir + "sanitizer.log",
                "--print-limit",
                "10",
                "--error-exitcode",
                std::to_string(kComputeSanitizerFoundExitCode)};
    if (options.sanitizer_tool == "racecheck") {
      cmd.argv.insert(cmd.argv.end(), {"--racecheck-report", "hazard"});
    }
  }
  cmd.argv.insert(cmd.argv.end(), harness.begin(), harness.end());
  if (!options.emu_order.empty()) cmd.env["LABKIT_EMU_ORDER"] = options.emu_order;
  if (!options.emu_kernels_json.empty()) cmd.env["LABKIT_EMU_KERNELS"] = options.emu_kernels_json;
  cmd.env["LABKIT_EMU_REPORT"] = dir + "emu_report.jsonl";
  if (options.device_memory_bytes > 0)
    cmd.env["LABKIT_DEVICE_MEMORY_LIMIT"] = std::to_string(options.device_memory_bytes);
  if (options.count_accesses) cmd.env["LABKIT_EMU_COUNT_ACCESSES"] = "1";
  if (options.thread_sanitizer) {
    // One OS thread: blocks run one after another, so every report is between threads of a block.
    cmd.env["LABKIT_EMU_THREADS"] = "1";
    // TSan runs inside the student's process, and the harness leaves with _Exit, past the atexit
    // handler where TSan would set its exit status. So TSan ends the process itself at its first
    // report, with a status of its own (Die(), a raw exit that no handler of the program's runs
    // before): that status, not the log, says a race was found.
    cmd.env["TSAN_OPTIONS"] = "log_path=" + dir + "tsan halt_on_error=1 exitcode=" +
                              std::to_string(kThreadSanitizerFoundExitCode) +
                              " report_signal_unsafe=0";
  }
  return cmd;
}

// A missing or short output stays empty: the case is then judged as not having produced one.
std::vector<float> ReadOutput(const std::string& dir, const std::string& name, std::size_t count) {
  auto values = ReadFloatFile(dir + name, static_cast<int64_t>(count), 1);
  return values.ok() ? std::move(*values) : std::vector<float>{};
}

}  // namespace

LaunchInfo ParseLaunch(const json& l) {
  LaunchInfo info;
  if (!l.is_object()) return info;
  const std::string kernel = TextField(l, "kernel");
  info.kernel = kernel.empty() ? "?" : kernel;
  auto dims = [&](const char* key, long long* out) {
    const auto it = l.find(key);
    if (it == l.end() || !it->is_array() || it->size() != 3) return;
    for (int d = 0; d < 3; ++d)
      if ((*it)[d].is_number_integer()) out[d] = (*it)[d].get<long long>();
  };
  dims("grid", info.grid);
  dims("block", info.block);
  const double shared = NumberField(l, "dynamic_shared_bytes");
  if (!std::isnan(shared)) info.dynamic_shared_bytes = static_cast<long long>(shared);
  const auto counts = l.find("accesses");
  if (counts != l.end() && counts->is_object()) {
    MemoryAccesses& a = info.accesses.emplace();
    a.global_load_bytes = IntegerField(*counts, "global_load_bytes", 0);
    a.global_store_bytes = IntegerField(*counts, "global_store_bytes", 0);
    a.shared_loads = IntegerField(*counts, "shared_loads", 0);
    a.shared_stores = IntegerField(*counts, "shared_stores", 0);
    a.barriers = IntegerField(*counts, "barriers", 0);
    a.static_shared_bytes = IntegerField(*counts, "static_shared_bytes", 0);
  }
  return info;
}

std::optional<MemoryRefusal> ParseMemoryRefusal(const json& line) {
  const auto it = line.find("device_memory_refused");
  if (it == line.end() || !it->is_object()) return std::nullopt;
  MemoryRefusal refusal;
  refusal.call = TextField(*it, "call");
  refusal.bytes = IntegerField(*it, "bytes", 0);
  refusal.in_use_bytes = IntegerField(*it, "in_use_bytes", 0);
  refusal.limit_bytes = IntegerField(*it, "limit_bytes", 0);
  return refusal;
}

namespace {

// The line comes from a process the student's code ran in: a field of the wrong type reads as
// unknown rather than stopping the grader.
TransferInfo ParseTransfer(const json& t) {
  auto text = [&](const char* key) {
    const std::string value = TextField(t, key);
    return value.empty() ? "?" : value;
  };
  TransferInfo info;
  info.call = text("call");
  info.kind = text("kind");
  if (t.contains("bytes") && t["bytes"].is_number()) info.bytes = t["bytes"].get<long long>();
  return info;
}

// A buffer line of the harness's: a matrix it does not have, or an address or size that is not a
// number, leaves the buffer out (an unnamed address is reported as it is).
std::optional<HarnessBuffer> ParseBuffer(const json& b) {
  if (!b.is_object()) return std::nullopt;
  HarnessBuffer buffer;
  buffer.matrix = TextField(b, "name");
  if (buffer.matrix != "A" && buffer.matrix != "B" && buffer.matrix != "C") return std::nullopt;
  const auto address = b.find("address");
  if (address == b.end() || !address->is_number_unsigned()) return std::nullopt;
  buffer.address = address->get<std::uint64_t>();
  buffer.bytes = IntegerField(b, "bytes", -1);
  if (buffer.bytes <= 0) return std::nullopt;
  return buffer;
}

// What a record run left: its plans' folder, how its process ended, the emulator's notes on the
// function's host-side calls.
struct Recording {
  std::string dir;
  ProcessResult process;
  bool finished = false;  // the record harness reached its end
  // The device-memory budget's first refusal there, as the record harness reported it.
  std::optional<MemoryRefusal> memory_refused;
  std::vector<json> diagnostics;
  // Every case the record run was asked for, by what its plan depends on (PlanKey), with the id
  // its plan file is named after.
  std::map<std::string, std::string> plan_ids;

  // The id of the plan this recording holds for `key`, if it can serve it: it was asked for the
  // case and wrote its plan, or it reached its end (a plan missing then was removed by the
  // submission, which the replay reports). A case it never got to, because the function crashed
  // or hung on an earlier one, is recorded again, so that the crash is told where it happened.
  std::optional<std::string> PlanFor(const std::string& key) const {
    const auto it = plan_ids.find(key);
    if (it == plan_ids.end()) return std::nullopt;
    if (finished || fs::exists(dir + it->second + ".plan")) return it->second;
    return std::nullopt;
  }
};

// The plans one replay needs, each from the recording that holds it.
struct RecordedPlans {
  Recording record;  // the record run that speaks for them (an unfinished one, if any)
  std::vector<std::pair<std::string, std::string>> sources;  // replayed id -> recorded plan path
};

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

// Runs the function once per program for every case a check asks for: a later check whose cases
// earlier recordings hold replays their plans (see PlanKey). Otherwise a record process runs for
// this request's cases, then `record_also`.
RecordedPlans Record(ProcessRunner& runner, const std::string& executable, const std::string& dir,
                     const HarnessOptions& options, const std::vector<MatrixCase>& cases) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Recording>> done;
  const std::string program = ProgramKey(executable, options);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = FindPlans(done[program], options, cases, false)) return std::move(*found);
  }
  Recording recording;
  recording.dir = dir.substr(0, dir.size() - 1) + ".record/";
  fs::remove_all(recording.dir);
  fs::create_directories(recording.dir);
  HarnessOptions record = options;
  record.sanitizer_tool.clear();
  record.emu_order.clear();
  record.thread_sanitizer = false;
  record.gpu_counters = false;
  std::vector<MatrixCase> asked = cases;
  for (const MatrixCase& c : cases) recording.plan_ids.emplace(PlanKey(options, c), c.id);
  for (const MatrixCase& extra : options.record_also) {
    if (recording.plan_ids.count(PlanKey(options, extra)) > 0) continue;
    MatrixCase shape_only{"also" + std::to_string(asked.size()) + "_" + extra.id, extra.shape, {},
                          {}, extra.exercise};
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

// Hands the recorded plans to the replay's folder, each under the id of the case that replays it
// (copied by labgrade: the replay process cannot read the record's folder, nor the record process
// write the replay's).
void CopyPlans(const RecordedPlans& recorded, const std::string& dir,
               const std::vector<MatrixCase>& cases, bool timing) {
  for (const MatrixCase& c : cases) fs::remove(dir + c.id + ".plan");  // replay_plan.h PlanFileName
  if (timing) fs::remove(dir + "timing.plan");
  for (const auto& [replayed, path] : recorded.sources) {
    const auto plan = ReadUntrustedFile(path, 256u << 20);
    if (!plan.ok()) continue;  // the replay reports the case as not recorded
    // A plan that cannot be written (a full disk) is missing in the replay, which then reports
    // the case as not recorded: nothing more to do here.
    (void)WriteUntrustedFile(dir + replayed + ".plan", *plan);
  }
}

// Reads response.jsonl into `run`, whose cases are listed by id: the device, done, error, timing
// and occupancy lines, and each case line into its case. The harness reports a case once: a
// second line for it was written by something else, and marks it.
void ReadResponse(const std::string& dir, HarnessRun& run) {
  for (const json& line : ReadJsonObjectLines(dir + "response.jsonl")) {
    const std::string type = TextField(line, "type");
    if (type == "device") {
      run.device = line;
    } else if (type == "done") {
      run.done = true;
    } else if (type == "error") {
      run.harness_error = TextField(line, "detail");
    } else if (type == "timing") {
      run.timing = line;
    } else if (type == "occupancy") {
      run.occupancy.push_back(line);
    } else if (type == "case") {
      for (CaseRun& r : run.cases) {
        if (r.id != TextField(line, "id")) continue;
        if (r.reported) {
          r.status = "reported_twice";
          continue;
        }
        r.reported = true;
        r.status = TextField(line, "status");
        r.error = TextField(line, "error");
        r.detail = TextField(line, "detail");
        if (line.contains("launches") && line["launches"].is_array())
          for (const json& l : line["launches"]) r.launches.push_back(ParseLaunch(l));
        if (line.contains("transfers") && line["transfers"].is_array())
          for (const json& t : line["transfers"])
            if (t.is_object()) r.transfers.push_back(ParseTransfer(t));
        if (line.contains("buffers") && line["buffers"].is_array())
          for (const json& b : line["buffers"])
            if (auto buffer = ParseBuffer(b)) r.buffers.push_back(*buffer);
        if (line.contains("values") && line["values"].is_object()) r.values = line["values"];
        r.memory_refused = ParseMemoryRefusal(line);
      }
    }
  }
}

// Runs the harness's `command` in `dir`. Under Nsight Compute a session can find the GPU's counters
// taken despite ncu's own lock files (Command::tool_lock_dir): ncu then logs "==ERROR== An error
// was reported by the driver", writes no table and ends with the program's status (exit status 9
// on an H200 under a batch's load, 2026-11-26), while the same run alone counts. Such a run is run
// again, a moment later, up to kCountingAttempts in all. A run with its table, or one that ended
// without ncu reporting an error (the program's own doing), stands as it is.
ProcessResult RunHarnessProcess(ProcessRunner& runner, const Command& command,
                                const std::string& dir, const HarnessOptions& options) {
  for (int attempt = 1;; ++attempt) {
    ProcessResult result = runner.Run(command);
    if (!options.gpu_counters || attempt >= kCountingAttempts) return result;
    const std::string log = ReadText(dir + "counters.csv");
    if (ParseCounterLog(log).has_value() || CounterLogError(log).empty()) return result;
    for (const char* stale : {"response.jsonl", "emu_report.jsonl", "counters.csv"})
      fs::remove(dir + stale);
    std::this_thread::sleep_for(std::chrono::milliseconds(300 * attempt));
  }
}

// With gpu_counters: ncu's log, and each launch's counts where it held its table.
void ReadCounters(const std::string& dir, const HarnessOptions& options, HarnessRun& run) {
  if (!options.gpu_counters) return;
  run.counter_log = ReadText(dir + "counters.csv");
  if (const auto profiled = ParseCounterLog(run.counter_log)) {
    run.counted = true;
    AttachCounts(run.cases, *profiled);
  }
}

// The program's kernels and variables as labgrade read them off it (nm), for the harness to check
// what it replays against; null when the file is missing or unreadable.
json StudentImage(const std::string& executable) {
  const auto image = ReadUntrustedFile(executable + ".image.json", 64u << 20);
  if (!image.ok()) return nullptr;
  json listed = json::parse(*image, nullptr, false);
  return listed.is_object() ? listed : json(nullptr);
}

}  // namespace

HarnessRun RunHarness(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<MatrixCase>& cases) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl", "sanitizer.log", "counters.csv"})
    fs::remove(dir + stale);
  for (const std::string& stale : ThreadSanitizerLogs(dir)) fs::remove(stale);
  HarnessRun run;
  json student_image;
  std::optional<RecordedPlans> recorded;
  if (options.replay) {
    student_image = StudentImage(executable);
    if (!student_image.is_object()) {
      for (const MatrixCase& c : cases) run.cases.push_back({c.id});
      run.harness_error =
          "the grader's list of the program's kernels (" + executable + ".image.json) is missing";
      return run;
    }
    recorded = Record(runner, executable, dir, options, cases);
    run.record_process = recorded->record.process;
    run.record_finished = recorded->record.finished;
    run.record_memory_refused = recorded->record.memory_refused;
    if (recorded->sources.empty() && !recorded->record.finished) {
      // The function never got through a case (it crashed or hung on the first): nothing to
      // replay, and the replay would only meet the same static initialisers again.
      for (const MatrixCase& c : cases) run.cases.push_back({c.id, true, "not_recorded"});
      run.emu_diagnostics = recorded->record.diagnostics;
      return run;
    }
    CopyPlans(*recorded, dir, cases, options.timing != nullptr);
  }
  if (const Status written = WriteRequest(dir, options, cases, true, student_image); !written) {
    for (const MatrixCase& c : cases) run.cases.push_back({c.id});
    run.harness_error = "the grader could not write the harness's inputs: " + written.error();
    return run;
  }
  run.process = RunHarnessProcess(
      runner, HarnessCommand(executable, dir, options, options.replay ? "--replay" : ""), dir,
      options);

  for (const MatrixCase& c : cases) run.cases.push_back({c.id});
  ReadResponse(dir, run);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (run.cases[i].status == "ok")
      run.cases[i].C = ReadOutput(dir, cases[i].id + ".C.f32",
                                  static_cast<std::size_t>(cases[i].shape.m * cases[i].shape.k));
  if (run.timing && TextField(*run.timing, "status") == "ok" && options.timing != nullptr) {
    const Shape& s = options.timing->shape;
    for (std::size_t i = 0; i < options.timing->A_sets.size(); ++i)
      run.timing_outputs.push_back(
          ReadOutput(dir, "t" + std::to_string(i) + ".C.f32", static_cast<std::size_t>(s.m * s.k)));
  }
  if (recorded) run.emu_diagnostics = recorded->record.diagnostics;
  for (json& line : ReadJsonObjectLines(dir + "emu_report.jsonl"))
    run.emu_diagnostics.push_back(std::move(line));
  if (!options.sanitizer_tool.empty()) run.sanitizer_log = ReadText(dir + "sanitizer.log");
  if (options.thread_sanitizer) run.sanitizer_log = ReadThreadSanitizerLogs(dir);
  ReadCounters(dir, options, run);
  return run;
}

HarnessRun RunQueries(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<ParamSet>& params) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl", "counters.csv"})
    fs::remove(dir + stale);
  HarnessRun run;
  json request = {{"exercise", options.exercise}, {"cases", json::array()}};
  for (std::size_t i = 0; i < params.size(); ++i) {
    run.cases.push_back({"q" + std::to_string(i)});
    request["cases"].push_back({{"id", run.cases.back().id}, {"params", params[i]}});
  }
  if (options.list_launches) request["list_launches"] = true;
  // A lab that records a host function of the student's and replays its device work (lab 02)
  // checks the replay's launches against the program's own kernels.
  if (json image = StudentImage(executable); image.is_object()) request["student_image"] = image;
  if (const Status written = WriteUntrustedFile(dir + "request.json", request.dump(1)); !written) {
    run.harness_error = "cannot write the request: " + written.error();
    return run;
  }
  run.process = RunHarnessProcess(runner, HarnessCommand(executable, dir, options), dir, options);
  ReadResponse(dir, run);
  run.emu_diagnostics = ReadJsonObjectLines(dir + "emu_report.jsonl");
  ReadCounters(dir, options, run);
  return run;
}

}  // namespace labkit
