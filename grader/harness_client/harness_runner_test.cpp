#include "harness_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gpu_counters.h"
#include "harness_request.h"

namespace labkit {
namespace {

// Where a command's argument names a file: relative to its folder (the harness's request and
// response, named relative to it where the student's code runs: HarnessCommand).
std::string InFolder(const Command& command, const std::string& arg) {
  return (std::filesystem::path(command.cwd) / arg).string();
}

// Plays the harness: writes a fixed response where the real one would (argv[2]).
class ScriptedHarness : public ProcessRunner {
 public:
  explicit ScriptedHarness(std::string response) : response_(std::move(response)) {}
  Command last;
  ProcessResult Run(const Command& command) override {
    last = command;
    std::ofstream(InFolder(command, command.argv.at(2))) << response_;
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
  }

 private:
  std::string response_;
};

// Runs RunHarness on two 1x1x1 cases ("c0", "c1") with `response` as the harness's output.
HarnessRun RunOnTwoCases(const std::string& response) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ScriptedHarness harness(response);
  HarnessOptions options;
  options.exercise = "tiled_any";
  const std::vector<MatrixCase> cases = {{"c0", {1, 1, 1}, {1.0f}, {1.0f}},
                                         {"c1", {1, 1, 1}, {1.0f}, {1.0f}}};
  HarnessRun run = RunHarness(harness, "harness", dir, options, cases);
  std::filesystem::remove_all(dir);
  return run;
}

TEST(HarnessRunner, ReadsTheTransfersOfEachCase) {
  const HarnessRun run = RunOnTwoCases(
      R"({"type": "device", "backend": "cpu"})"
      "\n"
      R"({"type": "case", "id": "c0", "status": "guard_violation", "launches": [], "transfers": [)"
      R"({"call": "cudaMemcpy", "kind": "device_to_host", "bytes": 3364},)"
      R"({"call": "cudaMallocHost", "kind": "host_allocation", "bytes": 64}]})"
      "\n"
      // Forged or damaged: a field of the wrong type is unknown, an entry that is no object is
      // skipped; the grader goes on.
      R"({"type": "case", "id": "c1", "status": "guard_violation", "transfers": [)"
      R"({"call": 7, "kind": "device_to_device", "bytes": "many"}, 3]})"
      "\n"
      R"({"type": "done"})"
      "\n");
  ASSERT_TRUE(run.done);
  ASSERT_EQ(run.cases.size(), 2u);
  ASSERT_EQ(run.cases[0].transfers.size(), 2u);
  EXPECT_EQ(run.cases[0].transfers[0].call, "cudaMemcpy");
  EXPECT_EQ(run.cases[0].transfers[0].kind, "device_to_host");
  EXPECT_EQ(run.cases[0].transfers[0].bytes, 3364);
  EXPECT_EQ(run.cases[0].transfers[1].kind, "host_allocation");
  EXPECT_EQ(run.cases[0].transfers[1].bytes, 64);
  ASSERT_EQ(run.cases[1].transfers.size(), 1u);
  EXPECT_EQ(run.cases[1].transfers[0].call, "?");
  EXPECT_EQ(run.cases[1].transfers[0].kind, "device_to_device");
  EXPECT_EQ(run.cases[1].transfers[0].bytes, 0);
}

// Lines written into response.jsonl by the student's code, which shares the harness's process:
// any shape, any types. None stops the grader; a case reported twice is marked as such.
TEST(HarnessRunner, ReadsForgedLinesOfAnyShapeWithoutStopping) {
  const HarnessRun run = RunOnTwoCases(
      R"({"type": "case", "id": "c0", "status": "ok", "launches": [)"
      R"({"kernel": "k", "grid": [2, 1, 1], "block": [16, 16, 1], "dynamic_shared_bytes": 0}]})"
      "\n"
      R"([1, 2, 3])"
      "\n"
      R"({"type": 5})"
      "\n"
      R"({"type": "timing", "status": ["ok"]})"
      "\n"
      R"({"type": "case", "id": "c1", "status": 7, "error": [], "transfers": "none", "launches": )"
      R"([1, {"kernel": 2, "grid": "x", "block": [1, "a", 3], "dynamic_shared_bytes": "big"}]})"
      "\n"
      R"({"type": "case", "id": "c0", "status": "ok"})"
      "\n");
  EXPECT_FALSE(run.done);
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[0].status, "reported_twice");
  ASSERT_EQ(run.cases[0].launches.size(), 1u);
  EXPECT_EQ(run.cases[0].launches[0].grid[0], 2);
  EXPECT_TRUE(run.cases[1].reported);
  EXPECT_EQ(run.cases[1].status, "");  // a number where text belongs reads as unknown
  ASSERT_EQ(run.cases[1].launches.size(), 2u);
  EXPECT_EQ(run.cases[1].launches[1].kernel, "?");
  EXPECT_EQ(run.cases[1].launches[1].block[0], 1);
  EXPECT_EQ(run.cases[1].launches[1].block[1], 0);
  EXPECT_EQ(run.cases[1].launches[1].dynamic_shared_bytes, 0);
  EXPECT_TRUE(run.cases[1].transfers.empty());
}

// Where the harness put each case's A, B and C, for naming the matrix at an address of
// compute-sanitizer's (memcheck_log.h). An entry naming no matrix of the harness's, or with an
// address or size that is no number, is left out; 64-bit addresses come through whole.
TEST(HarnessRunner, ReadsWhereEachCasesMatricesLie) {
  const HarnessRun run = RunOnTwoCases(
      R"({"type": "case", "id": "c0", "status": "cuda_error", "buffers": [)"
      R"({"name": "A", "address": 140737488351232, "bytes": 4},)"
      R"({"name": "B", "address": 18446744073709551360, "bytes": 4},)"
      R"({"name": "D", "address": 4096, "bytes": 4}, {"name": "C", "address": -1, "bytes": 4},)"
      R"({"name": "C", "address": 8192, "bytes": "4"}, 7]})"
      "\n"
      R"({"type": "case", "id": "c1", "status": "ok", "buffers": "none"})"
      "\n");
  ASSERT_EQ(run.cases[0].buffers.size(), 2u);
  EXPECT_EQ(run.cases[0].buffers[0].matrix, "A");
  EXPECT_EQ(run.cases[0].buffers[0].address, 140737488351232ULL);
  EXPECT_EQ(run.cases[0].buffers[0].bytes, 4);
  EXPECT_EQ(run.cases[0].buffers[1].matrix, "B");
  EXPECT_EQ(run.cases[0].buffers[1].address, 18446744073709551360ULL);
  EXPECT_TRUE(run.cases[1].buffers.empty());
}

// A counting run (CPU backend) asks the emulator for counts and reads them from each launch; a
// count of the wrong type reads as 0, a launch without counts has none.
TEST(HarnessRunner, ReadsTheAccessCountsOfEachLaunch) {
  const HarnessRun run = RunOnTwoCases(
      R"({"type": "case", "id": "c0", "status": "ok", "launches": [{"kernel": "k", "accesses": )"
      R"({"global_load_bytes": 32768, "global_store_bytes": 16384, "shared_loads": 9, )"
      R"("shared_stores": 8, "barriers": "many", "static_shared_bytes": 2048}}, {"kernel": "j"}]})"
      "\n");
  ASSERT_EQ(run.cases[0].launches.size(), 2u);
  const std::optional<MemoryAccesses>& a = run.cases[0].launches[0].accesses;
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->global_load_bytes, 32768);
  EXPECT_EQ(a->global_store_bytes, 16384);
  EXPECT_EQ(a->shared_loads, 9);
  EXPECT_EQ(a->shared_stores, 8);
  EXPECT_EQ(a->barriers, 0);
  EXPECT_EQ(a->static_shared_bytes, 2048);
  EXPECT_FALSE(run.cases[0].launches[1].accesses.has_value());

  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_counting_" + std::to_string(getpid()));
  ScriptedHarness harness(R"({"type": "done"})" "\n");
  HarnessOptions options;
  options.exercise = "tiled_any";
  auto request = [&] { return nlohmann::json::parse(std::ifstream(dir + "/request.json")); };
  RunHarness(harness, "harness", dir, options, {});
  EXPECT_FALSE(request().contains("emulator"));
  const Command plain = harness.last;
  options.count_accesses = true;
  RunHarness(harness, "harness", dir, options, {});
  EXPECT_EQ(request().at("emulator"), nlohmann::json({{"count_accesses", true}}));
  // Asked in the request only: the program's arguments and environment are the plain run's.
  EXPECT_EQ(harness.last.argv, plain.argv);
  EXPECT_EQ(harness.last.env, plain.env);
  std::filesystem::remove_all(dir);
}

// Every harness run carries the device-memory budget (common/harness/device_memory_budget.h).
TEST(HarnessRunner, GivesTheHarnessItsDeviceMemoryBudget) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_budget_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ScriptedHarness harness(R"({"type": "done"})" "\n");
  HarnessOptions options;
  options.exercise = "tiled_any";
  RunHarness(harness, "harness", dir, options, {});
  EXPECT_EQ(harness.last.env.at("LABKIT_DEVICE_MEMORY_LIMIT"),
            std::to_string(kHarnessDeviceMemoryBytes));
  options.device_memory_bytes = 0;  // none
  RunHarness(harness, "harness", dir, options, {});
  EXPECT_EQ(harness.last.env.count("LABKIT_DEVICE_MEMORY_LIMIT"), 0u);
  std::filesystem::remove_all(dir);
}

// Keeps the command it was given and runs nothing.
class CommandKeeper : public ProcessRunner {
 public:
  Command last;
  ProcessResult Run(const Command& command) override {
    last = command;
    ProcessResult r;
    r.started = true;
    return r;
  }
};

// The sanitizers' exit statuses are the evidence of a finding (sanitizer_end.h): each tool is
// told the kit's own, and TSan to stop at its first report, since the harness leaves by _Exit,
// past the handler where TSan would otherwise set its status.
TEST(HarnessRunner, TellsEachSanitizerTheStatusThatSaysItFoundSomething) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_sanitizers_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  CommandKeeper runner;
  HarnessOptions options;
  options.exercise = "tiled_any";
  options.sanitizer_tool = "racecheck";
  RunHarness(runner, "harness", dir, options, {});
  const std::vector<std::string>& argv = runner.last.argv;
  const auto status = std::find(argv.begin(), argv.end(), "--error-exitcode");
  ASSERT_NE(status, argv.end());
  ASSERT_NE(status + 1, argv.end());
  EXPECT_EQ(*(status + 1), std::to_string(kComputeSanitizerFoundExitCode));

  options.sanitizer_tool.clear();
  options.thread_sanitizer = true;
  RunHarness(runner, "harness", dir, options, {});
  const std::string tsan = runner.last.env.at("TSAN_OPTIONS");
  EXPECT_NE(tsan.find("halt_on_error=1"), std::string::npos) << tsan;
  EXPECT_NE(tsan.find("exitcode=" + std::to_string(kThreadSanitizerFoundExitCode)),
            std::string::npos)
      << tsan;
  std::filesystem::remove_all(dir);
}

// The kit's replay program looks names up that may be no device variable's: its failed calls are
// no finding of memcheck's. The student's own program keeps every API error a finding.
TEST(HarnessRunner, OnlyTheKitsProgramRunsWithoutApiErrorReports) {
  HarnessOptions options;
  options.sanitizer_tool = "memcheck";
  auto reports_api_errors = [&](bool kit_program) {
    const std::vector<std::string> argv =
        HarnessCommand("program", "/w/", options, "--replay", kit_program).argv;
    return std::find(argv.begin(), argv.end(), "--report-api-errors") == argv.end();
  };
  EXPECT_TRUE(reports_api_errors(false));
  EXPECT_FALSE(reports_api_errors(true));
}

// A counting run is the harness itself, asked in its request for a table of counts beside it, and
// given the folder where counting runs take turns at the GPU's counters.
TEST(HarnessRunner, ACountingRunAsksTheHarnessForItsTable) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_table_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  CommandKeeper runner;
  HarnessOptions options;
  options.exercise = "tiled_any";
  options.gpu_counters = true;
  RunHarness(runner, "/kit/harness", dir, options, {});
  ASSERT_FALSE(runner.last.argv.empty());
  EXPECT_EQ(runner.last.argv.front(), "/kit/harness");
  EXPECT_EQ(runner.last.lock_dir, kCounterLockDir);
  EXPECT_EQ(runner.last.env[gpu_metric::kLockDirVariable], kCounterLockDir);
  // The lock file every counting run opens, read-only: labgrade makes it.
  EXPECT_TRUE(std::filesystem::is_regular_file(std::string(kCounterLockDir) + "/" +
                                               gpu_metric::kLockFile));
  std::ifstream in(dir + "/request.json");
  const auto request = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(request.is_object());
  EXPECT_EQ(request.value("gpu_counters", ""), kCounterTable);

  // A query exercise's counted run (lab 02) asks the same way.
  options.exercise = "float3_staged";
  RunQueries(runner, "/kit/harness", dir, options, {{{"n", 4096}}});
  std::ifstream query(dir + "/request.json");
  EXPECT_EQ(nlohmann::json::parse(query, nullptr, false).value("gpu_counters", ""), kCounterTable);

  options.gpu_counters = false;
  RunHarness(runner, "/kit/harness", dir, options, {});
  EXPECT_TRUE(runner.last.lock_dir.empty());
  std::ifstream again(dir + "/request.json");
  EXPECT_FALSE(nlohmann::json::parse(again, nullptr, false).contains("gpu_counters"));
  std::filesystem::remove_all(dir);
}

// Plays a counting harness: the first `failures` runs write why they could not count in place of
// the table (the counters taken by another session), the next one counts.
class BusyCounters : public ProcessRunner {
 public:
  explicit BusyCounters(int failures, std::string error_line = "==ERROR== starting the profiler: "
                                                               "CUPTI_ERROR_HARDWARE_BUSY")
      : failures_(failures), error_line_(std::move(error_line)) {}
  int runs = 0;
  ProcessResult Run(const Command& command) override {
    ++runs;
    const std::string table = command.cwd + "/" + kCounterTable;
    ProcessResult r;
    r.started = true;
    if (runs <= failures_) {
      std::ofstream(table) << error_line_ << "\n";
      r.exit_code = 9;
      return r;
    }
    std::ofstream(table) << "\"ID\",\"Kernel Name\",\"Block Size\",\"Metric Name\","
                                 "\"Metric Value\"\n\"0\",\"k\",\"(32, 1, 1)\","
                                 "\"smsp__sass_inst_executed_op_global_ld.sum\",\"2\"\n";
    std::ofstream(InFolder(command, command.argv.back()))
        << R"({"type": "case", "id": "q0", "status": "ok"})"
        << "\n";
    return r;
  }

 private:
  int failures_;
  std::string error_line_;
};

// Counters another session holds for a moment cost a retry, not the grading; a program that dies
// with no error in its table (its own doing), or counters that stay taken, are not run again forever.
TEST(HarnessRunner, ACountingRunThatFindsTheCountersTakenIsRunAgain) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_counters_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  HarnessOptions options;
  options.exercise = "float3_staged";
  options.gpu_counters = true;
  options.counting_retry_pause = std::chrono::milliseconds(1);
  {
    BusyCounters ncu(1);
    const HarnessRun run = RunQueries(ncu, "harness", dir, options, {{{"n", 4096}}});
    EXPECT_EQ(ncu.runs, 2);
    EXPECT_TRUE(run.counted) << run.counter_log;
    EXPECT_TRUE(run.cases.at(0).reported);
  }
  {
    BusyCounters ncu(kCountingAttempts + 5);
    const HarnessRun run = RunQueries(ncu, "harness", dir, options, {{{"n", 4096}}});
    EXPECT_EQ(ncu.runs, kCountingAttempts);
    EXPECT_FALSE(run.counted);
  }
  {
    BusyCounters ncu(1, "the program's own last words");
    const HarnessRun run = RunQueries(ncu, "harness", dir, options, {{{"n", 4096}}});
    EXPECT_EQ(ncu.runs, 1);
    EXPECT_FALSE(run.counted);
  }
  std::filesystem::remove_all(dir);
}

// Plays a host function's two runs (lab 02): the record run writes a plan for each of the first
// `recorded` cases and, if it got through them all, its "done" line; the replay run notes which
// plans it found beside its request.
class RecordThenReplay : public ProcessRunner {
 public:
  explicit RecordThenReplay(int recorded) : recorded_(recorded) {}
  std::vector<Command> commands;
  std::vector<std::string> plans_found;
  ProcessResult Run(const Command& command) override {
    commands.push_back(command);
    const bool record = command.argv.at(1) == "--record";
    std::ofstream response(InFolder(command, command.argv.back()));
    for (const char* id : {"q0", "q1"}) {
      const std::string plan = command.cwd + id + ".plan";
      if (record && id[1] - '0' < recorded_) std::ofstream(plan) << "plan of " << id;
      if (!record && std::filesystem::exists(plan)) plans_found.push_back(id);
    }
    if (!record || recorded_ == 2)
      response << R"({"type": "done"})"
               << "\n";
    ProcessResult r;
    r.started = true;
    r.exit_code = record && recorded_ < 2 ? 134 : 0;
    return r;
  }

 private:
  int recorded_;
};

TEST(HarnessRunner, AHostFunctionIsRecordedInOneProcessAndReplayedInAnother) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("labkit_harness_runner_recorded_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  HarnessOptions options;
  options.exercise = "vector_add";
  options.replay = true;
  options.gpu_counters = true;  // asked of the replay only
  const std::vector<ParamSet> params = {{{"n", 1000}}, {{"n", 31}}};
  {
    RecordThenReplay harness(2);
    const HarnessRun run = RunQueries(harness, "harness", dir, options, params);
    ASSERT_EQ(harness.commands.size(), 2u);
    EXPECT_EQ(harness.commands[0].argv.at(1), "--record");
    EXPECT_EQ(harness.commands[0].cwd, dir + ".record/");
    EXPECT_TRUE(harness.commands[0].lock_dir.empty()) << "the record run counts nothing";
    EXPECT_EQ(harness.commands[1].argv.at(1), "--replay");
    EXPECT_EQ(harness.commands[1].cwd, dir + "/");
    EXPECT_EQ(harness.plans_found, (std::vector<std::string>{"q0", "q1"}));
    EXPECT_TRUE(run.record_finished);
  }
  {
    // Died on the second case: its plan, left by the run above, is gone from the replay's folder.
    RecordThenReplay harness(1);
    const HarnessRun run = RunQueries(harness, "harness", dir, options, params);
    EXPECT_EQ(harness.plans_found, (std::vector<std::string>{"q0"}));
    EXPECT_FALSE(run.record_finished);
    EXPECT_EQ(run.record_process.exit_code, 134);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(dir + ".record");
}

// The budget's refusal comes as numbers on the case line; fields of the wrong type read as 0.
TEST(HarnessRunner, ReadsTheMemoryRefusalOfACase) {
  const HarnessRun run = RunOnTwoCases(
      R"({"type": "case", "id": "c0", "status": "cuda_error", "device_memory_refused": )"
      R"({"call": "cudaMalloc", "bytes": 1024, "in_use_bytes": 2048, "limit_bytes": 3000}})"
      "\n"
      R"({"type": "case", "id": "c1", "status": "ok", "device_memory_refused": {"bytes": "x"}})"
      "\n");
  ASSERT_TRUE(run.cases[0].memory_refused.has_value());
  EXPECT_EQ(run.cases[0].memory_refused->call, "cudaMalloc");
  EXPECT_EQ(run.cases[0].memory_refused->bytes, 1024);
  EXPECT_EQ(run.cases[0].memory_refused->in_use_bytes, 2048);
  EXPECT_EQ(run.cases[0].memory_refused->limit_bytes, 3000);
  ASSERT_TRUE(run.cases[1].memory_refused.has_value());
  EXPECT_EQ(run.cases[1].memory_refused->bytes, 0);
  const HarnessRun none = RunOnTwoCases(R"({"type": "case", "id": "c0", "status": "ok"})"
                                        "\n");
  EXPECT_FALSE(none.cases[0].memory_refused.has_value());
}

}  // namespace
}  // namespace labkit
