#include "harness_runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "gpu_counters.h"
#include "harness_request.h"
#include "harness_response.h"
#include "recorded_plans.h"
#include "replay_plan.h"
#include "report_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

std::string FindCudaTool(const std::string& name) {
  for (const std::string& dir : std::vector<std::string>{
           "/usr/local/cuda/bin", "/usr/local/cuda/" + name, "/opt/cuda/bin", "/usr/bin"}) {
    const std::string candidate = dir + "/" + name;
    if (fs::exists(candidate)) return candidate;
  }
  return name;
}

namespace {

// Runs the harness's `command` in `dir`. A counting run can find the GPU's counters taken despite
// the lock the counting runs share (launch_counters.h; under Nsight Compute, which counted before,
// "An error was reported by the driver" under a batch's load, 2026-11-26): the harness then writes
// why in place of its table. Such a run is run again, a moment later, up to kCountingAttempts in
// all. A run with its table, or one that ended without the table saying why (the program's own
// doing), stands as it is.
ProcessResult RunHarnessProcess(ProcessRunner& runner, const Command& command,
                                const std::string& dir, const HarnessOptions& options) {
  if (options.gpu_counters) MakeCounterLock();
  for (int attempt = 1;; ++attempt) {
    ProcessResult result = runner.Run(command);
    if (!options.gpu_counters || attempt >= kCountingAttempts) return result;
    const std::string log = ReadToolLog(dir + kCounterTable);
    // A machine that cannot count for anyone will not count on a second try either.
    if (ParseCounterLog(log).has_value() || CounterLogError(log).empty() || CannotCountHere(log))
      return result;
    for (const char* stale : {"response.jsonl", "emu_report.jsonl", kCounterTable})
      fs::remove(dir + stale);
    std::this_thread::sleep_for(options.counting_retry_pause * (1 << (attempt - 1)));
  }
}

// Query exercises with HarnessOptions::replay: the record run, in a folder of its own beside
// `work_dir` (its request: `request` as it stands, with nothing counted), and each case's plan
// copied from there into `work_dir`, read as a file the student's process could have written. A
// case it did not get to has no plan there: the replay reports it as not recorded. Fills `run`'s
// record fields; "" or what the grader could not do.
std::string RecordQueries(ProcessRunner& runner, const std::string& executable,
                          const std::string& work_dir, const HarnessOptions& options,
                          const json& request, HarnessRun& run) {
  const std::string dir = work_dir + "/", record_dir = work_dir + ".record/";
  std::error_code ec;
  fs::remove_all(record_dir, ec);
  fs::create_directories(record_dir, ec);
  if (const Status written = WriteHarnessRequest(record_dir, request); !written)
    return "cannot write the record run's request: " + written.error();
  HarnessOptions record = options;
  record.gpu_counters = false;
  record.count_accesses = false;
  record.sanitizer_tool.clear();
  record.emu_order.clear();
  run.record_process = runner.Run(HarnessCommand(executable, record_dir, record, "--record"));
  for (const json& line : ReadJsonObjectLines(record_dir + "response.jsonl")) {
    run.record_finished = run.record_finished || TextField(line, "type") == "done";
    if (!run.record_memory_refused) run.record_memory_refused = ParseMemoryRefusal(line);
  }
  for (const CaseRun& c : run.cases) {
    const std::string plan = replay::PlanFileName(c.id);
    fs::remove(dir + plan, ec);
    const auto bytes = ReadUntrustedFile(record_dir + plan, replay::kMaxPlanBytes);
    if (bytes.ok()) (void)WriteUntrustedFile(dir + plan, *bytes);  // else: not recorded
  }
  // What the emulator saw while the function ran (its host code crashing, say) explains a case
  // the replay reports as not recorded.
  run.emu_diagnostics = ReadJsonObjectLines(record_dir + "emu_report.jsonl");
  return "";
}

}  // namespace

std::string CounterError(const HarnessRun& run) {
  return CounterLogError(run.counter_log + "\n" + run.process.output);
}

std::string NotCountedNote(const HarnessRun& run, const std::string& what) {
  std::string said = CounterError(run);
  if (said.empty()) said = LastLine(run.process.output);
  return "the GPU's profiler could not count " + what + " here (" +
         run.process.Describe() + (said.empty() ? "" : ": " + said) + ")";
}

namespace {

// Which of `cases` a counting run counts (MatrixCase::counted): empty when none is marked (all).
std::vector<bool> CountedMask(const std::vector<MatrixCase>& cases) {
  std::vector<bool> mask;
  for (const MatrixCase& c : cases) mask.push_back(c.counted);
  if (std::find(mask.begin(), mask.end(), true) == mask.end()) mask.clear();
  return mask;
}

}  // namespace

HarnessRun RunHarness(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<MatrixCase>& cases) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl", "sanitizer.log", kCounterTable})
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
      for (const MatrixCase& c : cases)
        run.cases.push_back({c.id, true, case_status::kNotRecorded});
      run.emu_diagnostics = recorded->record.diagnostics;
      return run;
    }
    CopyPlans(*recorded, dir, cases, options.timing != nullptr);
  }
  // GPU: the replay in the kit's own program, with the student's device code and none of their
  // host code (kit_replay_program.h), where the build made it.
  const std::string kit_program =
      options.replay && options.uses_gpu ? UseKitReplayProgram(executable, dir, student_image) : "";
  if (const Status written = WriteRequest(dir, options, cases, true, student_image); !written) {
    for (const MatrixCase& c : cases) run.cases.push_back({c.id});
    run.harness_error = "the grader could not write the harness's inputs: " + written.error();
    return run;
  }
  run.process =
      RunHarnessProcess(runner,
                        HarnessCommand(kit_program.empty() ? executable : kit_program, dir, options,
                                       options.replay ? "--replay" : "", !kit_program.empty()),
                        dir, options);

  for (const MatrixCase& c : cases) run.cases.push_back({c.id});
  ReadResponse(dir, run);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (run.cases[i].status == case_status::kOk)
      run.cases[i].C = ReadOutput(dir, cases[i].id + ".C.f32",
                                  static_cast<std::size_t>(cases[i].shape.m * cases[i].shape.k));
  if (run.timing && TextField(*run.timing, "status") == case_status::kOk &&
      options.timing != nullptr) {
    const Shape& s = options.timing->shape;
    for (std::size_t i = 0; i < options.timing->A_sets.size(); ++i)
      run.timing_outputs.push_back(
          ReadOutput(dir, "t" + std::to_string(i) + ".C.f32", static_cast<std::size_t>(s.m * s.k)));
  }
  if (recorded) run.emu_diagnostics = recorded->record.diagnostics;
  for (json& line : ReadJsonObjectLines(dir + "emu_report.jsonl"))
    run.emu_diagnostics.push_back(std::move(line));
  if (!options.sanitizer_tool.empty()) run.sanitizer_log = ReadToolLog(dir + "sanitizer.log");
  if (options.thread_sanitizer) run.sanitizer_log = ReadThreadSanitizerLogs(dir);
  ReadCounters(dir, options, run, CountedMask(cases));
  return run;
}

HarnessRun RunQueries(ProcessRunner& runner, const std::string& executable,
                      const std::string& work_dir, const HarnessOptions& options,
                      const std::vector<ParamSet>& params) {
  const std::string dir = work_dir + "/";
  fs::create_directories(dir);
  for (const char* stale : {"response.jsonl", "emu_report.jsonl", kCounterTable})
    fs::remove(dir + stale);
  HarnessRun run;
  json request = {{"exercise", options.exercise}, {"cases", json::array()}};
  for (std::size_t i = 0; i < params.size(); ++i) {
    run.cases.push_back({"q" + std::to_string(i)});
    request["cases"].push_back({{"id", run.cases.back().id}, {"params", params[i]}});
  }
  // A lab that records a host function of the student's and replays its device work (lab 02)
  // checks the replay's launches against the program's own kernels.
  if (json image = StudentImage(executable); image.is_object()) request["student_image"] = image;
  if (options.replay) {
    if (std::string failed = RecordQueries(runner, executable, work_dir, options, request, run);
        !failed.empty()) {
      run.harness_error = failed;
      return run;
    }
  }
  if (options.list_launches) request["list_launches"] = true;
  AddRunSettings(options, request);
  if (const Status written = WriteHarnessRequest(dir, request); !written) {
    run.harness_error = "cannot write the request: " + written.error();
    return run;
  }
  run.process = RunHarnessProcess(
      runner, HarnessCommand(executable, dir, options, options.replay ? "--replay" : ""), dir,
      options);
  ReadResponse(dir, run);
  for (json& line : ReadJsonObjectLines(dir + "emu_report.jsonl"))
    run.emu_diagnostics.push_back(std::move(line));
  ReadCounters(dir, options, run);
  return run;
}

}  // namespace labkit
