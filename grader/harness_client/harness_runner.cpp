#include "harness_runner.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

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
  } else if (!options.sanitizer_tool.empty()) {
    cmd.argv = {FindCudaTool("compute-sanitizer"),
                "--tool",
                options.sanitizer_tool,
                "--log-file",
                dir + "sanitizer.log",
                "--print-limit",
                "10",
                "--error-exitcode",
                std::to_string(kEmuFaultExitCode)};
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
    cmd.env["TSAN_OPTIONS"] = "log_path=" + dir + "tsan exitcode=0 report_signal_unsafe=0";
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
  }
  return info;
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

// What a record run left: its plans' folder, how its process ended, the emulator's notes on the
// function's host-side calls.
struct Recording {
  std::string dir;
  ProcessResult process;
  bool finished = false;  // the record harness reached its end
  std::size_t plans = 0;  // plan files it left
  std::vector<json> diagnostics;
  // Every case the record run was asked for, by what its plan depends on (PlanKey), with the id
  // its plan file is named after. A case whose function crashed or hung is here without a file.
  std::map<std::string, std::string> plan_ids;
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
// run under other ids, replay what the first run recorded.
std::string PlanKey(const HarnessOptions& options, const MatrixCase& c) {
  std::ostringstream key;
  key << (c.exercise.empty() ? options.exercise : c.exercise) << '|' << c.shape.m << 'x'
      << c.shape.n << 'x' << c.shape.k;
  return key.str();
}

std::string TimingPlanKey(const HarnessOptions& options) {
  const Shape& s = options.timing->shape;
  std::ostringstream key;
  key << "timing|" << options.exercise << '|' << s.m << 'x' << s.n << 'x' << s.k;
  return key.str();
}

bool Holds(const Recording& recording, const HarnessOptions& options,
           const std::vector<MatrixCase>& cases) {
  for (const MatrixCase& c : cases)
    if (recording.plan_ids.count(PlanKey(options, c)) == 0) return false;
  return options.timing == nullptr || recording.plan_ids.count(TimingPlanKey(options)) > 0;
}

// Runs the function once per program for every case a check asks for: a later check whose cases
// one recording holds replays its plans (see PlanKey), with that recording's process as its
// record. Otherwise a record process runs for this request's cases and `record_also`.
Recording Record(ProcessRunner& runner, const std::string& executable, const std::string& dir,
                 const HarnessOptions& options, const std::vector<MatrixCase>& cases) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Recording>> done;
  const std::string program = ProgramKey(executable, options);
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Unless its folder has gone since (a work folder cleaned for the next grading).
    for (const Recording& r : done[program])
      if (Holds(r, options, cases) && fs::exists(r.dir)) return r;
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
  if (const Status written = WriteRequest(recording.dir, record, asked, false); !written) {
    recording.process.start_error = written.error();
    return recording;
  }
  recording.process = runner.Run(HarnessCommand(executable, recording.dir, record, "--record"));
  recording.diagnostics = ReadJsonObjectLines(recording.dir + "emu_report.jsonl");
  for (const json& line : ReadJsonObjectLines(recording.dir + "response.jsonl"))
    recording.finished = recording.finished || TextField(line, "type") == "done";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(recording.dir, ec))
    recording.plans += entry.path().extension() == ".plan";
  // A record the grader could not start is its own fault: the next check tries again.
  std::lock_guard<std::mutex> lock(mutex);
  if (recording.process.started) done[program].push_back(recording);
  return recording;
}

// Hands the recorded plans to the replay's folder, each under the id of the case that replays it
// (copied by labgrade: the replay process cannot read the record's folder, nor the record process
// write the replay's).
void CopyPlans(const Recording& recording, const std::string& dir, const HarnessOptions& options,
               const std::vector<MatrixCase>& cases) {
  std::vector<std::pair<std::string, std::string>> copies;  // recorded id, replayed id
  for (const MatrixCase& c : cases) copies.emplace_back(recording.plan_ids.at(PlanKey(options, c)), c.id);
  if (options.timing != nullptr) copies.emplace_back("timing", "timing");
  for (const auto& [recorded, replayed] : copies) {
    // replay_plan.h PlanFileName
    fs::remove(dir + replayed + ".plan");
    const auto plan = ReadUntrustedFile(recording.dir + recorded + ".plan", 256u << 20);
    if (!plan.ok()) continue;  // the replay reports the case as not recorded
    // A plan that cannot be written (a full disk) is missing in the replay, which then reports
    // the case as not recorded: nothing more to do here.
    (void)WriteUntrustedFile(dir + replayed + ".plan", *plan);
  }
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
  std::optional<Recording> recording;
  if (options.replay) {
    const auto image = ReadUntrustedFile(executable + ".image.json", 64u << 20);
    if (image.ok()) student_image = json::parse(*image, nullptr, false);
    if (!student_image.is_object()) {
      for (const MatrixCase& c : cases) run.cases.push_back({c.id});
      run.harness_error =
          "the grader's list of the program's kernels (" + executable + ".image.json) is missing";
      return run;
    }
    recording = Record(runner, executable, dir, options, cases);
    run.record_process = recording->process;
    run.record_finished = recording->finished;
    if (recording->plans == 0 && !recording->finished) {
      // The function never got through a case (it crashed or hung on the first): nothing to
      // replay, and the replay would only meet the same static initialisers again.
      for (const MatrixCase& c : cases) run.cases.push_back({c.id, true, "not_recorded"});
      run.emu_diagnostics = recording->diagnostics;
      return run;
    }
    CopyPlans(*recording, dir, options, cases);
  }
  if (const Status written = WriteRequest(dir, options, cases, true, student_image); !written) {
    for (const MatrixCase& c : cases) run.cases.push_back({c.id});
    run.harness_error = "the grader could not write the harness's inputs: " + written.error();
    return run;
  }
  {
    // One GPU's counters serve one Nsight Compute session at a time; each sandbox has a /tmp of
    // its own, where ncu's own lock would not be seen by the others.
    const CounterSessionLock counters(options.gpu_counters);
    run.process =
        runner.Run(HarnessCommand(executable, dir, options, options.replay ? "--replay" : ""));
  }

  for (const MatrixCase& c : cases) run.cases.push_back({c.id});
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
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].id != TextField(line, "id")) continue;
        CaseRun& r = run.cases[i];
        if (r.reported) {
          // The harness reports a case once: a second line was written by something else.
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
        if (r.status == "ok")
          r.C = ReadOutput(dir, cases[i].id + ".C.f32",
                           static_cast<std::size_t>(cases[i].shape.m * cases[i].shape.k));
      }
    }
  }
  if (run.timing && TextField(*run.timing, "status") == "ok" && options.timing != nullptr) {
    const Shape& s = options.timing->shape;
    for (std::size_t i = 0; i < options.timing->A_sets.size(); ++i)
      run.timing_outputs.push_back(
          ReadOutput(dir, "t" + std::to_string(i) + ".C.f32", static_cast<std::size_t>(s.m * s.k)));
  }
  if (recording) run.emu_diagnostics = recording->diagnostics;
  for (json& line : ReadJsonObjectLines(dir + "emu_report.jsonl"))
    run.emu_diagnostics.push_back(std::move(line));
  if (!options.sanitizer_tool.empty()) run.sanitizer_log = ReadText(dir + "sanitizer.log");
  if (options.thread_sanitizer) run.sanitizer_log = ReadThreadSanitizerLogs(dir);
  if (options.gpu_counters) {
    run.counter_log = ReadText(dir + "counters.csv");
    if (const auto profiled = ParseCounterLog(run.counter_log)) {
      run.counted = true;
      AttachCounts(run.cases, *profiled);
    }
  }
  return run;
}

}  // namespace labkit
