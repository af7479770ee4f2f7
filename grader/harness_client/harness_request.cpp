#include "harness_request.h"

#include <filesystem>

#include "gpu_counters.h"
#include "inputs.h"
#include "kit_replay_program.h"
#include "request_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

Status WriteRequest(const std::string& dir, const HarnessOptions& options,
                    const std::vector<MatrixCase>& cases, bool with_inputs,
                    const json& student_image) {
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
    // Never in a record run's request: the student's function runs there.
    if (c.counted && with_inputs) entry["counted"] = true;
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
  AddRunSettings(options, request);
  if (!written) return written;
  return WriteHarnessRequest(dir, std::move(request));
}

Status WriteHarnessRequest(const std::string& dir, json request) {
  std::string lines;
  bool marks_counted = false;
  if (request.contains("cases"))
    for (const json& c : request["cases"]) {
      lines += c.dump() + "\n";
      marks_counted = marks_counted || c.value("counted", false);
    }
  request.erase("cases");
  request["marks_counted"] = marks_counted;
  // The cases first: a harness that finds request.json finds its cases beside it.
  if (Status written = WriteUntrustedFile(dir + kCasesFileName, lines); !written) return written;
  return WriteUntrustedFile(dir + kRequestFileName, request.dump(1));
}

void AddRunSettings(const HarnessOptions& options, json& request) {
  if (options.gpu_counters) request["gpu_counters"] = kCounterTable;
  json emulator = json::object();
  if (!options.emu_order.empty()) emulator["order"] = options.emu_order;
  // One OS thread: blocks run one after another, so every ThreadSanitizer report is between
  // threads of a block.
  if (options.thread_sanitizer) emulator["threads"] = 1;
  if (options.count_accesses) emulator["count_accesses"] = true;
  if (!emulator.empty()) request["emulator"] = std::move(emulator);
}

Command HarnessCommand(const std::string& executable, const std::string& dir,
                       const HarnessOptions& options, const std::string& mode, bool kit_program) {
  Command cmd;
  cmd.cwd = dir;
  cmd.timeout_seconds = options.timeout_seconds;
  cmd.output_limit = options.output_limit;
  cmd.gpu = !options.uses_gpu                                 ? GpuUse::kNone
            : options.timing != nullptr && mode != "--record" ? GpuUse::kExclusive
                                                              : GpuUse::kShared;
  // The kit's replay program, run bare, asks for its turns at the GPU itself, and for the GPU
  // alone only for its timed repetitions (gpu_turns.h). Under compute-sanitizer, and in a
  // counting run, whose profiler sessions span the process, it holds its turn for its whole life
  // as any other program does: sanitizer runs that took turns ran beside more of the batch, and
  // slower (bench/results/throughput-h100-80gb-hbm3-2026-11-27-gpu-turns.txt).
  if (kit_program && options.uses_gpu && !options.gpu_counters && options.sanitizer_tool.empty())
    cmd.gpu = GpuUse::kTurns;
  // A program with the student's code in it gets the same arguments and environment in every run
  // of one build, whichever check it is: its constructors see argv and envp before any of the
  // kit's code runs (glibc passes them, no library call needed), and a folder or a variable that
  // named the check would let it behave well only there (docs/THREAT_MODEL.md). So its request
  // and response are named relative to its folder (cwd), and what differs between checks is in
  // the request (AddRunSettings).
  const std::string named = kit_program ? dir : "";
  std::vector<std::string> harness = {executable, named + kRequestFileName,
                                      named + "response.jsonl"};
  if (!mode.empty()) harness.insert(harness.begin() + 1, mode);
  // In every GPU run alike, for the same reason; only a counting run is shown the folder.
  if (options.uses_gpu) cmd.env[gpu_metric::kLockDirVariable] = kCounterLockDir;
  if (options.gpu_counters) {
    cmd.lock_dir = kCounterLockDir;  // one GPU's counters serve one session at a time
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
    // The kit's replay program looks the student's kernels and variables up by name, and a name
    // that is no device variable's (a host global's) is a failed lookup: no finding.
    if (kit_program) cmd.argv.insert(cmd.argv.end(), {"--report-api-errors", "no"});
  }
  cmd.argv.insert(cmd.argv.end(), harness.begin(), harness.end());
  if (!options.emu_kernels_json.empty()) cmd.env["LABKIT_EMU_KERNELS"] = options.emu_kernels_json;
  cmd.env["LABKIT_EMU_REPORT"] = "emu_report.jsonl";  // in its folder, as above
  // One hardware work queue for the process's CUDA context instead of eight: the harness launches
  // on the default stream only, and such a context costs a third as much to create and destroy
  // when a batch's sixteen jobs start them at once (0.79 s against 2.2 s each, sixteen at once,
  // on an H100: bench/results/throughput-h100-80gb-hbm3-2026-11-26-connections.txt).
  cmd.env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1";
  if (options.device_memory_bytes > 0)
    cmd.env["LABKIT_DEVICE_MEMORY_LIMIT"] = std::to_string(options.device_memory_bytes);
  if (options.thread_sanitizer) {
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

std::string UseKitReplayProgram(const std::string& executable, const std::string& dir,
                                json& student_image) {
  // Written by the build beside the program (grader/device_code/kit_replay_program.h).
  const json list = ReadDeviceCodeList(executable);
  if (list.is_null() || !list.contains("program") || !list["program"].is_string()) return "";
  const auto fatbins = ReadListedFatbins(list);
  if (!fatbins) return "";
  json names = json::array();
  for (const std::vector<char>& fatbin : *fatbins) {
    const std::string name = "student" + std::to_string(names.size()) + ".fatbin";
    if (!WriteUntrustedFile(dir + name, std::string(fatbin.begin(), fatbin.end()))) return "";
    names.push_back(name);
  }
  student_image["device_code"] = {
      {"fatbins", names},
      {"kernel_names", list.value("kernel_names", json::array())},
      {"variable_names", list.value("variable_names", json::array())},
      {"device_variable_names", list.value("device_variable_names", json::array())},
      {"constant_names", list.value("constant_names", json::array())},
      {"constants_complete", list.value("constants_complete", false)}};
  return list["program"].get<std::string>();
}

json StudentImage(const std::string& executable) {
  const auto image = ReadUntrustedFile(executable + ".image.json", 64u << 20);
  if (!image.ok()) return nullptr;
  json listed = json::parse(*image, nullptr, false);
  return listed.is_object() ? listed : json(nullptr);
}

}  // namespace labkit
