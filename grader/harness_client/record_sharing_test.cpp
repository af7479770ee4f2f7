// A record run serves every later check whose cases it holds (recorded_plans.cpp, PlanKey): on a
// GPU shared by a batch each process is a CUDA context that queues behind the others, so a record
// process saved is a context saved.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness_runner.h"
#include "replay_plan.h"
#include "request_files_test_util.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Plays record and replay. A record run writes a plan for every case its request names; a replay
// reports each case "ok" when labgrade handed it a plan under the case's id, else "not_recorded".
class RecordingHarness : public ProcessRunner {
 public:
  int records = 0;
  int replays = 0;
  bool start = true;
  int crash_after = -1;  // a record run dies after this many cases (-1: never)
  // Plans as a real record run writes them (a launch of the kernel at image offset 100), rather
  // than a placeholder: for the translation between builds, which reads them.
  bool real_plans = false;
  std::vector<Command> commands;
  ProcessResult Run(const Command& command) override {
    commands.push_back(command);
    ProcessResult result;
    result.started = start;
    if (!start) {
      result.start_error = "no such file";
      return result;
    }
    const bool record = command.argv.at(1) == "--record";
    (record ? records : replays)++;
    // Named relative to the program's folder (HarnessCommand).
    const std::filesystem::path folder = command.cwd;
    const json request = ReadWholeRequest(folder / command.argv.at(2));
    std::ofstream response(folder / command.argv.at(3));
    int recorded = 0;
    for (const json& c : request.at("cases")) {
      if (record && recorded++ == crash_after) {
        // What the emulator says of the case the function died on (emu_report.jsonl).
        std::ofstream(command.cwd + "/emu_report.jsonl")
            << json{{"case", c.at("id")}, {"kind", "host_copy_out_of_bounds"}}.dump() << "\n";
        result.signal = 11;
        return result;
      }
      const std::string plan = command.cwd + "/" + c.at("id").get<std::string>() + ".plan";
      if (record && real_plans) {
        replay::Plan p;
        p.ops.emplace_back();
        p.ops.back().type = replay::OpType::kLaunch;
        p.ops.back().image = 100;
        replay::WritePlanFile(plan, p);
      } else if (record) {
        std::ofstream(plan) << "plan";
      }
      const bool ok = record || fs::exists(plan);
      response << json{{"type", "case"}, {"id", c.at("id")},
                       {"status", ok ? "ok" : "not_recorded"}}.dump()
               << "\n";
    }
    response << R"({"type": "done"})" << "\n";
    result.exit_code = 0;
    return result;
  }
};

class RecordSharing : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("labkit_record_sharing_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Each test its own program: the record cache lives as long as the process.
    executable_ = dir_ + "/harness";
    std::ofstream(executable_) << "program";
    std::ofstream(executable_ + ".image.json") << "{}";
  }
  void TearDown() override { fs::remove_all(dir_); }

  HarnessRun Run(const std::string& work, const HarnessOptions& options,
                 const std::vector<MatrixCase>& cases) {
    return RunHarness(harness_, executable_, dir_ + "/" + work, options, cases);
  }

  static HarnessOptions Replayed(bool exact_layout = false) {
    HarnessOptions options;
    options.exercise = "tiled";
    options.replay = true;
    options.exact_layout = exact_layout;
    return options;
  }

  // The default build (executable_) and a -fmad=false build of the same sources, whose kernel
  // lies at 5100 where the default build's lies at 100; record runs write real plans. Returns the
  // other build's program.
  std::string TwoBuildsOfOneKernel() {
    harness_.real_plans = true;
    std::ofstream(executable_ + ".symbols.json") << R"({"_Z6kernelPf": [100, 40, "code"]})";
    const std::string nofma = dir_ + "/harness_nofma";
    std::ofstream(nofma) << "other build";
    std::ofstream(nofma + ".image.json") << "{}";
    std::ofstream(nofma + ".symbols.json") << R"({"_Z6kernelPf": [5100, 48, "code"]})";
    return nofma;
  }

  static void ExpectAllOk(const HarnessRun& run) {
    for (const CaseRun& c : run.cases) EXPECT_EQ(c.status, "ok") << c.id;
  }

  std::string dir_, executable_;
  RecordingHarness harness_;
};

const MatrixCase kSmall{"tiled_0", {16, 16, 16}, {}, {}, ""};
const MatrixCase kOdd{"tiled_1", {17, 5, 9}, {}, {}, ""};

TEST_F(RecordSharing, ASanitizerRunOfSomeCasesUnderOtherIdsReplaysTheFirstRecord) {
  ExpectAllOk(Run("default", Replayed(), {kSmall, kOdd}));
  EXPECT_EQ(harness_.records, 1);
  // A sanitizer's run: the matrices in allocations of their own, a subset, ids prefixed.
  MatrixCase renamed = kOdd;
  renamed.id = "g0_tiled_1";
  const HarnessRun memcheck = Run("memcheck", Replayed(true), {renamed});
  EXPECT_EQ(harness_.records, 1);
  EXPECT_EQ(harness_.replays, 2);
  ExpectAllOk(memcheck);
  EXPECT_TRUE(memcheck.record_process.started);
}

// On a GPU, where the build cut out the student's device code
// (grader/device_code/kit_replay_program.h), the record runs in the student's program and the
// replay in the kit's, which gets the fatbinary beside its request and the names to find the
// kernels by.
TEST_F(RecordSharing, OnAGpuTheReplayRunsInTheKitsOwnProgram) {
  std::ofstream(dir_ + "/harness.fatbin0") << "device code";
  std::ofstream(executable_ + ".device_code.json") << json{
      {"program", dir_ + "/kit_replay"},
      {"fatbins", {dir_ + "/harness.fatbin0"}},
      {"kernel_names", json::parse(R"([[100, "_Z6kernelPf"]])")},
      {"variable_names", json::array()},
      {"device_variable_names", json::array({"c_side"})}}.dump();
  ExpectAllOk(Run("default", Replayed(), {kSmall}));
  ASSERT_EQ(harness_.commands.size(), 2u);
  EXPECT_EQ(harness_.commands[0].argv.at(0), executable_);
  EXPECT_EQ(harness_.commands[0].argv.at(1), "--record");
  EXPECT_EQ(harness_.commands[1].argv.at(0), dir_ + "/kit_replay");
  EXPECT_EQ(harness_.commands[1].argv.at(1), "--replay");
  const json request = json::parse(std::ifstream(dir_ + "/default/request.json"));
  const json& code = request.at("student_image").at("device_code");
  EXPECT_EQ(code.at("fatbins"), json::array({"student0.fatbin"}));
  EXPECT_EQ(code.at("kernel_names"), json::parse(R"([[100, "_Z6kernelPf"]])"));
  EXPECT_EQ(code.at("device_variable_names"), json::array({"c_side"}));
  std::string copied;
  std::getline(std::ifstream(dir_ + "/default/student0.fatbin"), copied);
  EXPECT_EQ(copied, "device code");

  // The CPU backend's runs (no GPU) stay in the program they built.
  harness_.commands.clear();
  HarnessOptions cpu = Replayed();
  cpu.uses_gpu = false;
  ExpectAllOk(Run("cpu", cpu, {kOdd}));
  ASSERT_FALSE(harness_.commands.empty());
  EXPECT_EQ(harness_.commands.back().argv.at(0), executable_);
}

TEST_F(RecordSharing, ACaseOfANewShapeOrExerciseIsRecordedAgain) {
  Run("default", Replayed(), {kSmall});
  Run("bigger", Replayed(), {{"tiled_9", {64, 64, 64}, {}, {}, ""}});
  EXPECT_EQ(harness_.records, 2);
  MatrixCase other_exercise = kSmall;
  other_exercise.exercise = "rows";
  ExpectAllOk(Run("rows", Replayed(), {other_exercise}));
  EXPECT_EQ(harness_.records, 3);
}

TEST_F(RecordSharing, CasesRecordedAlsoServeALaterCheckWithoutARecordOfItsOwn) {
  HarnessOptions first = Replayed();
  first.record_also = {{"tiled_counted", {96, 96, 96}, {}, {}, "tiled"}};
  Run("default", first, {kSmall});
  EXPECT_EQ(harness_.records, 1);
  const HarnessRun counting = Run("counting", Replayed(), {{"tiled_counted", {96, 96, 96}, {}, {}, "tiled"}});
  EXPECT_EQ(harness_.records, 1);
  ExpectAllOk(counting);
}

TEST_F(RecordSharing, OneRunIsServedByTheRecordingsOfSeveralExercises) {
  MatrixCase rows = kSmall;
  rows.exercise = "rows";
  Run("tiled", Replayed(), {kSmall});
  Run("rows", Replayed(), {rows});
  EXPECT_EQ(harness_.records, 2);
  MatrixCase g0 = kSmall, g1 = rows;
  g0.id = "g0_tiled_0";
  g0.exercise = "tiled";
  g1.id = "g1_tiled_0";
  ExpectAllOk(Run("racecheck", Replayed(true), {g0, g1}));
  EXPECT_EQ(harness_.records, 2);
}

TEST_F(RecordSharing, ACaseACrashedRecordNeverReachedIsRecordedAgainWhereItIsAsked) {
  // The first exercise's record also records the second's case, and dies before it.
  HarnessOptions first = Replayed();
  MatrixCase rows = kOdd;
  rows.exercise = "rows";
  first.record_also = {rows};
  harness_.crash_after = 1;
  ExpectAllOk(Run("tiled", first, {kSmall}));
  EXPECT_EQ(harness_.records, 1);
  // The second exercise's own record run, in which its function is the one that runs first.
  harness_.crash_after = -1;
  const HarnessRun second = Run("rows", Replayed(), {rows});
  EXPECT_EQ(harness_.records, 2);
  ExpectAllOk(second);
  EXPECT_EQ(second.record_process.signal, 0);
}

TEST_F(RecordSharing, TheEmulatorsNoteOnTheCaseTheFunctionDiedOnComesWithIt) {
  harness_.crash_after = 1;
  const HarnessRun run = Run("default", Replayed(), {kSmall, kOdd});
  EXPECT_EQ(run.record_process.signal, 11);
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[0].status, "ok");
  EXPECT_EQ(run.cases[1].status, "not_recorded");
  ASSERT_EQ(run.emu_diagnostics.size(), 1u);
  EXPECT_EQ(run.emu_diagnostics[0]["case"], "tiled_1");
}

TEST_F(RecordSharing, ARecordTheGraderCouldNotStartIsTriedAgain) {
  harness_.start = false;
  const HarnessRun failed = Run("default", Replayed(), {kSmall});
  EXPECT_FALSE(failed.record_process.started);
  harness_.start = true;
  ExpectAllOk(Run("again", Replayed(), {kSmall}));
  EXPECT_EQ(harness_.records, 1);
}

TEST_F(RecordSharing, AnotherProgramIsRecordedOnItsOwn) {
  Run("default", Replayed(), {kSmall});
  const std::string nofma = dir_ + "/harness_nofma";
  std::ofstream(nofma) << "other program";
  std::ofstream(nofma + ".image.json") << "{}";
  ExpectAllOk(RunHarness(harness_, nofma, dir_ + "/nofma", Replayed(), {kSmall}));
  EXPECT_EQ(harness_.records, 2);
}

// The -fmad=false build (and the CPU backend's ThreadSanitizer build) replays the
// default build's recording, its kernels moved to where they are in that build (plan_translation.h).
TEST_F(RecordSharing, AnotherBuildOfTheSameSourcesReplaysTheDefaultRecordingTranslated) {
  const std::string nofma = TwoBuildsOfOneKernel();
  Run("default", Replayed(), {kSmall, kOdd});
  EXPECT_EQ(harness_.records, 1);
  HarnessOptions options = Replayed();
  options.plans_from = executable_;
  const HarnessRun run = RunHarness(harness_, nofma, dir_ + "/nofma", options, {kSmall, kOdd});
  ExpectAllOk(run);
  EXPECT_EQ(harness_.records, 1);
  replay::Plan plan;
  ASSERT_EQ(replay::ReadPlanFile(dir_ + "/nofma/tiled_1.plan", plan), "");
  EXPECT_EQ(plan.ops.at(0).image, 5100);

  // A build where the kernel has no counterpart records for itself.
  const std::string other = dir_ + "/harness_other";
  std::ofstream(other) << "another build";
  std::ofstream(other + ".image.json") << "{}";
  std::ofstream(other + ".symbols.json") << R"({"_Z5otherPf": [5100, 48, "code"]})";
  ExpectAllOk(RunHarness(harness_, other, dir_ + "/other", options, {kSmall}));
  EXPECT_EQ(harness_.records, 2);
}

// A default record run that died after recording the cases another build asks for (on a case
// the function could spare, say) still serves that build, translated: a record run of its own
// would let the function tell the builds apart.
TEST_F(RecordSharing, ARecordThatDiedLaterStillServesTheOtherBuild) {
  const std::string nofma = TwoBuildsOfOneKernel();
  harness_.crash_after = 1;  // kSmall recorded, then the function dies on kOdd
  const HarnessRun first = Run("default", Replayed(), {kSmall, kOdd});
  EXPECT_EQ(first.record_process.signal, 11);
  EXPECT_EQ(harness_.records, 1);
  harness_.crash_after = -1;
  HarnessOptions options = Replayed();
  options.plans_from = executable_;
  ExpectAllOk(RunHarness(harness_, nofma, dir_ + "/nofma", options, {kSmall}));
  EXPECT_EQ(harness_.records, 1);
  replay::Plan plan;
  ASSERT_EQ(replay::ReadPlanFile(dir_ + "/nofma/tiled_0.plan", plan), "");
  EXPECT_EQ(plan.ops.at(0).image, 5100);
}

}  // namespace
}  // namespace labkit
