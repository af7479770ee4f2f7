// A scripted harness for the judge's unit tests: plays common/harness/harness_main.cpp through
// the ProcessRunner seam (ninja's CommandRunner idea), so that the verdict logic runs without a
// process. It reads request.json, writes response.jsonl and the outputs, leaves a plan per case in
// a record run, and answers each case, the timing and the process's end as the test's script says.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "exactness.h"
#include "inputs.h"
#include "lab_spec.h"
#include "mismatch.h"
#include "process.h"
#include "request_files_test_util.h"
#include "submission_build.h"

namespace labkit {
namespace testing_harness {

namespace fs = std::filesystem;
using nlohmann::json;

// What the judge's tests grade: a lab of one matmul exercise, "tiled", with a kernel (so
// replayed), checked bit for bit without fused multiply-add, on `shapes` (its cases tiled_0...).
inline LabSpec OneKernelLab(std::vector<Shape> shapes) {
  LabSpec spec;
  spec.id = "judge_lab";
  spec.tile = 16;
  spec.student_files = {"matmul.cu"};
  spec.shapes = {{"cases", std::move(shapes)}};
  Exercise ex;
  ex.id = "tiled";
  ex.function = "matmulTiled";
  ex.kernel = "tiled";
  ex.points = 10;
  ex.shapes = "cases";
  ex.exact_without_fma = true;
  spec.exercises = {ex};
  return spec;
}

// A build that succeeded, for the scripted harness to "run": a program at `executable` (its file
// name tells the script which build it is) and the list of its kernels a replay reads.
inline BuildOutcome ScriptedBuild(const std::string& executable) {
  BuildOutcome build;
  build.ok = true;
  build.executable = executable;
  std::ofstream(executable) << "harness";
  std::ofstream(executable + ".image.json") << "{}";
  return build;
}

// Builds as a test says, without a compiler: records what it was asked for, and a build that
// succeeds leaves an executable (with its list of kernels) for the scripted harness to "run".
class ScriptedBuilder : public SubmissionBuilder {
 public:
  using SubmissionBuilder::SubmissionBuilder;
  struct Asked {
    Backend backend;
    Flavour flavour;
  };
  std::vector<Asked> asked;
  bool succeeds = true;
  std::string executable = "emulator";  // the built program's file name (HarnessCall::build)

  BuildOutcome Build(const std::string&, const std::string& work_dir, Backend backend,
                     Flavour flavour) override {
    asked.push_back({backend, flavour});
    BuildOutcome build;
    if (!succeeds) {
      build.stage = "compile";
      build.message = "matmul.cu:4: error: something the emulator cannot compile";
      return build;
    }
    std::filesystem::create_directories(work_dir);
    return ScriptedBuild(work_dir + "/" + executable);
  }
};

// One harness process as the script sees it.
struct HarnessCall {
  std::string mode;      // "", "--record" or "--replay"
  std::string order;     // the request's emulator order: "", "reverse", "random:SEED"
  std::string tool;      // compute-sanitizer's --tool, "" when none
  std::string build;     // the executable's file name: which flavour was asked for
  std::string exercise;  // the request's exercise (on_case: the case's own, where it names one)
  // Run with TSAN_OPTIONS (the --tsan check).
  bool thread_sanitizer = false;
  // A counting run: the request asks the emulator to count accesses (the CPU backend's
  // technique.measured), or on a GPU the lock of the profiler's counters (gpu_counters.h).
  bool counting = false;
  GpuUse gpu = GpuUse::kNone;        // the turn at the GPU gate it asked for
  double timeout_seconds = 0;        // the command's limit
  std::vector<std::string> cases;    // the request's case ids, in order
  std::vector<std::string> counted;  // those it marks "counted" (a counting run counts only them)
};

// What the script answers for one case of one call.
struct CaseAnswer {
  std::string status = case_status::kOk;  // the case line's status; "" writes no line for the case
  std::string error, detail;
  // C(0, 0) as asked; kPoison leaves the harness's fill there (or, on the emulator, its NaN
  // pattern come through from memory never written).
  // kShifted: each element holds the next one's right value (a store at the wrong index).
  enum class Values { kRight, kUlpOff, kWrong, kPoison, kShifted } values = Values::kRight;
  // A CPU-backend diagnostic the emulator writes while it runs the case (stamped with its id).
  json emu_diagnostic;
  // The harness's report of a device-memory refusal on the case line (device_memory_refused).
  json memory_refused;
  json launches = json::array({{{"kernel", "_Z5tiledPKfS0_Pfiii"},
                                {"grid", {1, 1, 1}},
                                {"block", {16, 16, 1}},
                                {"dynamic_shared_bytes", 0}}});
  // The case's "buffers" (where the harness put A, B and C); null writes none.
  json buffers;
};

// The "timing" line of a run with a timing request (the speed item).
struct TimingAnswer {
  bool reported = true;  // false: no timing line, as when the process died
  std::string status = case_status::kOk;
  double student_ms = 2, baseline_ms = 10;
  int mismatched_reps = 0;
  bool right_outputs = true;  // the timed outputs: the product of the next input set
};

// What the script answers for one call of a query exercise (a case with "params").
struct QueryAnswer {
  std::string status = case_status::kOk;  // "" writes no line for the call
  std::string error, detail;
  json values = json::object();  // {"name": {"student": ..., "expected": ...}}
  json launches;                 // the line's "launches" (a counted run lists them); null: none
  json worked_out_for;           // the line's "worked_out_for"; null: none
};

// How the whole process ends, and what else it leaves.
struct ProcessAnswer {
  bool starts = true;
  bool timed_out = false;
  int signal = 0;
  bool done = true;                     // the "done" line
  bool device_line = true;              // the harness's first line, written before any case
  bool pageable_memory_access = false;  // what that line says of the GPU
  bool records = true;  // a record run writes its plans (false: it left before any case)
  // compute-sanitizer's log under --tool, ThreadSanitizer's (tsan.<pid>) under TSAN_OPTIONS
  std::string sanitizer_log;
  int exit_code = 0;   // when it neither timed out nor took a signal
  std::string output;  // what it printed (the program can print anything)
  // An "error" line after the cases: the harness's own failure, or one the student's code forged.
  std::string error_detail;
  // A GPU counting run's table (the request's "gpu_counters" file), written as it is; "" none.
  std::string counter_table;
};

class ScriptedHarness : public ProcessRunner {
 public:
  std::function<CaseAnswer(const HarnessCall&, const std::string& case_id)> on_case =
      [](const HarnessCall&, const std::string&) { return CaseAnswer{}; };
  std::function<ProcessAnswer(const HarnessCall&)> on_process = [](const HarnessCall&) {
    ProcessAnswer p;
    p.sanitizer_log = "========= ERROR SUMMARY: 0 errors\n";
    return p;
  };
  std::function<QueryAnswer(const HarnessCall&, const json& params)> on_query =
      [](const HarnessCall&, const json&) { return QueryAnswer{}; };
  std::function<TimingAnswer(const HarnessCall&)> on_timing = [](const HarnessCall&) {
    return TimingAnswer{};
  };
  std::vector<HarnessCall> calls;

  ProcessResult Run(const Command& command) override {
    HarnessCall call;
    std::size_t request = 0;
    for (std::size_t i = 0; i < command.argv.size(); ++i) {
      const std::string& arg = command.argv[i];
      if (arg == "--tool" && i + 1 < command.argv.size()) call.tool = command.argv[i + 1];
      if (arg == "--record" || arg == "--replay") call.mode = arg;
      if (arg.size() >= 12 && arg.compare(arg.size() - 12, 12, "request.json") == 0) request = i;
    }
    call.thread_sanitizer = command.env.count("TSAN_OPTIONS") > 0;
    call.gpu = command.gpu;
    call.timeout_seconds = command.timeout_seconds;
    const std::string& executable = command.argv.at(request - (call.mode.empty() ? 1 : 2));
    call.build = fs::path(executable).filename();
    // The request and response are named relative to the program's folder where the student's
    // code runs (HarnessCommand).
    const json req = ReadWholeRequest(fs::path(command.cwd) / command.argv[request]);
    const json emulator = req.value("emulator", json::object());
    call.order = emulator.value("order", std::string());
    call.counting = emulator.value("count_accesses", false) || !command.lock_dir.empty();
    call.exercise = req.at("exercise");
    for (const json& c : req.at("cases")) {
      call.cases.push_back(c.at("id"));
      if (c.value("counted", false)) call.counted.push_back(c.at("id"));
    }
    calls.push_back(call);

    const ProcessAnswer process = on_process(call);
    ProcessResult result;
    result.started = process.starts;
    result.start_error = process.starts ? "" : "no such file";
    if (!process.starts) return result;
    const std::string dir = command.cwd + "/";
    std::ofstream out(fs::path(command.cwd) / command.argv.at(request + 1));
    if (process.device_line)
      out << json({{"type", "device"},
                   {"name", "scripted"},
                   {"pageable_memory_access", process.pageable_memory_access ? 1 : 0}})
                 .dump()
          << "\n";
    for (const json& c : req.at("cases")) {
      const std::string id = c.at("id");
      if (c.contains("params")) {
        // A recorded host function (lab 02): the record run writes plans, the replay answers
        // where it finds one.
        if (call.mode == "--record") {
          if (process.records) std::ofstream(dir + id + ".plan") << "plan";
          continue;
        }
        if (call.mode == "--replay" && !fs::exists(dir + id + ".plan")) {
          out << json({{"type", "case"}, {"id", id}, {"status", case_status::kNotRecorded}}).dump()
              << "\n";
          continue;
        }
        const QueryAnswer answer = on_query(call, c["params"]);
        json line = {{"type", "case"},          {"id", id},
                     {"status", answer.status}, {"error", answer.error},
                     {"detail", answer.detail}, {"values", answer.values}};
        if (!answer.launches.is_null()) line["launches"] = answer.launches;
        if (!answer.worked_out_for.is_null()) line["worked_out_for"] = answer.worked_out_for;
        if (!answer.status.empty()) out << line.dump() << "\n";
        continue;
      }
      if (call.mode == "--record") {
        if (process.records) std::ofstream(dir + id + ".plan") << "plan";
        continue;
      }
      // A case of a combined run names its own exercise, as the harness reads it.
      HarnessCall case_call = call;
      if (c.contains("exercise")) case_call.exercise = c["exercise"];
      const CaseAnswer answer = on_case(case_call, id);
      if (answer.emu_diagnostic.is_object()) {
        json diagnostic = answer.emu_diagnostic;
        diagnostic["case"] = id;
        std::ofstream(dir + "emu_report.jsonl", std::ios::app) << diagnostic.dump() << "\n";
      }
      if (answer.status.empty()) continue;
      json line = {{"type", "case"},          {"id", id},
                   {"status", answer.status}, {"error", answer.error},
                   {"detail", answer.detail}, {"launches", answer.launches}};
      if (answer.memory_refused.is_object()) line["device_memory_refused"] = answer.memory_refused;
      if (answer.buffers.is_array()) line["buffers"] = answer.buffers;
      out << line.dump() << "\n";
      if (answer.status != case_status::kOk) continue;
      const Shape shape{c.at("m"), c.at("n"), c.at("k")};
      const auto a = ReadFloatFile(dir + c["inputs"]["A"].get<std::string>(), shape.m, shape.n);
      const auto b = ReadFloatFile(dir + c["inputs"]["B"].get<std::string>(), shape.n, shape.k);
      std::vector<float> product = SequentialProduct(shape, *a, *b);
      if (answer.values == CaseAnswer::Values::kUlpOff)
        product[0] = std::nextafter(product[0], 1e30f);
      if (answer.values == CaseAnswer::Values::kWrong) product[0] = 2 * product[0] + 1;
      if (answer.values == CaseAnswer::Values::kPoison) product[0] = FloatFromBits(kPoisonBits);
      if (answer.values == CaseAnswer::Values::kShifted)
        std::rotate(product.begin(), product.begin() + 1, product.end());
      EXPECT_TRUE(WriteFloatFile(dir + c["outputs"]["C"].get<std::string>(), product));
    }
    if (req.contains("timing") && !req["timing"].is_null() && call.mode != "--record")
      WriteTiming(call, req, dir, out);
    if (!process.error_detail.empty())
      out << json({{"type", "error"}, {"detail", process.error_detail}}).dump() << "\n";
    if (process.done)
      out << R"({"type": "done"})"
          << "\n";
    if (!call.tool.empty()) std::ofstream(dir + "sanitizer.log") << process.sanitizer_log;
    if (!process.counter_table.empty() && req.contains("gpu_counters"))
      std::ofstream(dir + req["gpu_counters"].get<std::string>()) << process.counter_table;
    if (call.thread_sanitizer && !process.sanitizer_log.empty())
      std::ofstream(dir + "tsan.4242") << process.sanitizer_log;
    result.timed_out = process.timed_out;
    result.signal = process.signal;
    result.exit_code = process.signal == 0 && !process.timed_out ? process.exit_code : -1;
    result.output = process.output;
    result.seconds = process.timed_out ? 60 : 0.1;
    return result;
  }

 private:
  // The harness swaps the input sets before its last run: output s is the product of set s + 1.
  void WriteTiming(const HarnessCall& call, const json& req, const std::string& dir,
                   std::ostream& out) {
    const TimingAnswer answer = on_timing(call);
    if (!answer.reported) return;
    const json& t = req["timing"];
    const Shape shape{t.at("m"), t.at("n"), t.at("k")};
    const json& sets = t.at("input_sets");
    for (std::size_t s = 0; s < sets.size(); ++s) {
      const json& next = sets[(s + 1) % sets.size()];
      const auto a = ReadFloatFile(dir + next["A"].get<std::string>(), shape.m, shape.n);
      const auto b = ReadFloatFile(dir + next["B"].get<std::string>(), shape.n, shape.k);
      std::vector<float> product = SequentialProduct(shape, *a, *b);
      if (!answer.right_outputs) product[0] = 2 * product[0] + 1;
      EXPECT_TRUE(WriteFloatFile(dir + t["outputs"][s].get<std::string>(), product));
    }
    out << json({{"type", "timing"},
                 {"status", answer.status},
                 {"error", answer.status == case_status::kOk ? "" : "cudaErrorLaunchFailure"},
                 {"student_median_ms", answer.student_ms},
                 {"baseline_median_ms", answer.baseline_ms},
                 {"mismatched_reps", answer.mismatched_reps}})
               .dump()
        << "\n";
  }
};

}  // namespace testing_harness
}  // namespace labkit
