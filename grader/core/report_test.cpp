#include "report.h"

#include <gtest/gtest.h>

#include "device_line.h"

namespace labkit {
namespace {

GradeResult Fixed() {
  GradeResult r;
  r.lab = "03_tiled_matmul";
  r.lab_title = "Shared-memory tiled matrix multiplication";
  r.submission = "submissions/alice";
  r.backend = "cpu";
  r.device.name = "h100-sxm (emulated)";
  r.device.compute_capability = "9.0";
  r.seed = 12345;
  r.timestamp = "2025-03-01T14:03:07Z";
  r.execution_time_seconds = 41.5;
  ExerciseResult tiled{"tiled",
                       "Shared-memory tiles, sizes that are multiples of TILE",
                       GradeStatus::kPassed,
                       30,
                       30,
                       "",
                       {}};
  ExerciseResult any{"tiled_any",
                     "Shared-memory tiles for any size (partial tiles zero-filled)",
                     GradeStatus::kFailed,
                     0,
                     40,
                     "wrong result in case 29 x 29 x 29 (m x n k):\n"
                     "expected 12.5 at row 17, column 3, got 0.0",
                     {"race check not run: no second thread order"}};
  r.exercises = {tiled, any};
  SpeedResult speed;
  speed.exercise = "tiled_any";
  speed.status = GradeStatus::kNotMeasured;
  speed.max_score = 30;
  speed.message = "Speed is measured on a GPU only: not measured here.";
  r.speed = speed;
  r.total = 30;
  r.max_total = 100;
  r.speed_not_measured = true;
  return r;
}

TEST(Report, FormatPoints) {
  EXPECT_EQ(FormatPoints(30), "30");
  EXPECT_EQ(FormatPoints(7.89), "7.89");
  EXPECT_EQ(FormatPoints(17.5), "17.5");
  EXPECT_EQ(FormatPoints(0), "0");
  EXPECT_EQ(FormatPoints(-0.0), "0");
  EXPECT_EQ(FormatPoints(4.004), "4");
}

TEST(Report, Terminal) {
  EXPECT_EQ(FormatTerminal(Fixed()),
            "03_tiled_matmul: Shared-memory tiled matrix multiplication\n"
            "submission submissions/alice\n"
            "backend    cpu, h100-sxm (emulated) (cc 9.0)\n"
            "seed       12345\n"
            "\n"
            "PASS  tiled      30 / 30   Shared-memory tiles, sizes that are multiples of TILE\n"
            "FAIL  tiled_any   0 / 40   Shared-memory tiles for any size (partial tiles "
            "zero-filled)\n"
            "----  speed       0 / 30   tiled_any (not measured)\n"
            "      total      30 / 100 (speed not measured)\n"
            "\n"
            "tiled_any (failed):\n"
            "  wrong result in case 29 x 29 x 29 (m x n k):\n"
            "  expected 12.5 at row 17, column 3, got 0.0\n"
            "  note: race check not run: no second thread order\n"
            "\n"
            "speed:\n"
            "  Speed is measured on a GPU only: not measured here.\n");
}

// A pass whose technique check could not run (no nvcc) is never shown as a plain pass.
TEST(Report, UncheckedPassIsSaidToBeNotFinal) {
  GradeResult r = Fixed();
  r.exercises[0].unchecked = true;
  r.exercises[0].notes = {"technique not checked: nvcc is not installed here"};
  const std::string text = FormatTerminal(r);
  EXPECT_NE(text.find("PASS  tiled      30 / 30   Shared-memory tiles, sizes that are multiples of "
                      "TILE (not final: a check could not run here, see the note)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(ToJson(r)["exercises"][0]["unchecked"], true);
  auto back = GradeResultFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(back->exercises[0].unchecked);
  EXPECT_EQ(ToGradescope(r)["tests"][0]["output"],
            "This pass is not final: a check that decides the points could not run here (see the "
            "note).\nnote: technique not checked: nvcc is not installed here");
}

TEST(Report, TerminalUnicodeAndColour) {
  GradeResult r = Fixed();
  r.speed.reset();
  r.speed_not_measured = false;
  r.exercises[1].status = GradeStatus::kCompileError;
  r.exercises[1].message.clear();
  r.exercises[1].notes.clear();
  r.max_total = 70;
  EXPECT_EQ(FormatTerminal(r, {true, true}),
            "\033[1m03_tiled_matmul\033[0m: Shared-memory tiled matrix multiplication\n"
            "submission submissions/alice\n"
            "backend    cpu, h100-sxm (emulated) (cc 9.0)\n"
            "seed       12345\n"
            "\n"
            "\033[32m\u2713\033[0m  tiled      30 / 30  Shared-memory tiles, sizes that are "
            "multiples of TILE\n"
            "\033[31m\u2717\033[0m  tiled_any   0 / 40  Shared-memory tiles for any size (partial "
            "tiles zero-filled) (compile error)\n"
            "   total      30 / 70\n");
}

TEST(Report, TerminalMeasuredSpeed) {
  GradeResult r = Fixed();
  r.exercises[1] = {"tiled_any", "Any size", GradeStatus::kPassed, 40, 40, "", {}};
  r.speed->status = GradeStatus::kPassed;
  r.speed->score = 17.61;
  r.speed->speedup = 2.6169;
  r.speed->message = "Speedup 2.62x over the given kernel.";
  r.total = 87.61;
  r.speed_not_measured = false;
  const std::string out = FormatTerminal(r);
  EXPECT_NE(out.find("PASS  speed      17.61 / 30   tiled_any, speedup 2.62x\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("      total      87.61 / 100\n"), std::string::npos) << out;
}

TEST(Report, Json) {
  EXPECT_EQ(ToJson(Fixed()).dump(2), R"json({
  "backend": "cpu",
  "device": {
    "cc": "9.0",
    "driver": "",
    "mem_clock_mhz": 0,
    "name": "h100-sxm (emulated)",
    "pageable_memory_access": false,
    "runtime": "",
    "sm_clock_mhz": 0
  },
  "execution_time_seconds": 41.5,
  "exercises": [
    {
      "cause": "",
      "id": "tiled",
      "max_score": 30.0,
      "message": "",
      "notes": [],
      "score": 30.0,
      "status": "passed",
      "title": "Shared-memory tiles, sizes that are multiples of TILE",
      "unchecked": false
    },
    {
      "cause": "",
      "id": "tiled_any",
      "max_score": 40.0,
      "message": "wrong result in case 29 x 29 x 29 (m x n k):\nexpected 12.5 at row 17, column 3, got 0.0",
      "notes": [
        "race check not run: no second thread order"
      ],
      "score": 0.0,
      "status": "failed",
      "title": "Shared-memory tiles for any size (partial tiles zero-filled)",
      "unchecked": false
    }
  ],
  "lab": "03_tiled_matmul",
  "lab_title": "Shared-memory tiled matrix multiplication",
  "max_total": 100.0,
  "schema_version": 1,
  "seed": "12345",
  "speed": {
    "baseline_ms": 0.0,
    "cause": "",
    "exercise": "tiled_any",
    "max_score": 30.0,
    "message": "Speed is measured on a GPU only: not measured here.",
    "reference_baseline_ms": 0.0,
    "reference_ms": 0.0,
    "reference_speedup": 0.0,
    "score": 0.0,
    "speedup": 0.0,
    "status": "not_measured",
    "student_ms": 0.0,
    "target_speedup": 0.0
  },
  "speed_not_measured": true,
  "submission": "submissions/alice",
  "timestamp": "2025-03-01T14:03:07Z",
  "total": 30.0
})json");
}

TEST(Report, JsonRoundTrip) {
  const GradeResult r = Fixed();
  Result<GradeResult> back = GradeResultFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(ToJson(*back), ToJson(r));
  EXPECT_EQ(back->seed, 12345u);
  EXPECT_EQ(back->exercises[1].status, GradeStatus::kFailed);
}

// A GPU whose kernels can reach host memory is named at the top of the report and in the JSON;
// a results file from before the key reads as one that cannot.
TEST(Report, AGpuWhoseKernelsReachHostMemoryIsSaidSo) {
  GradeResult r = Fixed();
  EXPECT_EQ(FormatTerminal(r).find("warning"), std::string::npos);
  r.device.pageable_memory_access = 1;
  const std::string text = FormatTerminal(r);
  EXPECT_NE(text.find("\nwarning    " + std::string(kKernelsReachHostMemory) + "\n"),
            std::string::npos)
      << text;
  nlohmann::json j = ToJson(r);
  EXPECT_EQ(j["device"]["pageable_memory_access"], true);
  EXPECT_EQ(GradeResultFromJson(j)->device.pageable_memory_access, 1);
  j["device"].erase("pageable_memory_access");
  EXPECT_EQ(GradeResultFromJson(j)->device.pageable_memory_access, 0);
}

TEST(Report, JsonReaderNamesTheField) {
  nlohmann::json j = ToJson(Fixed());
  j["exercises"][1]["status"] = "sort of";
  EXPECT_EQ(GradeResultFromJson(j).error(),
            "results: exercises[1].status: unknown status \"sort of\"");
  j = ToJson(Fixed());
  j.erase("total");
  EXPECT_EQ(GradeResultFromJson(j).error().substr(0, 16), "results: total: ");
  j = ToJson(Fixed());
  j["schema_version"] = 2;
  EXPECT_EQ(GradeResultFromJson(j).error(), "results: schema_version 2 is not the supported 1");
}

TEST(Report, Gradescope) {
  EXPECT_EQ(ToGradescope(Fixed()).dump(2), R"json({
  "execution_time": 41.5,
  "output": "03_tiled_matmul: 30 / 70 correctness points graded here. Speed (30 points) is not measured on this machine (no GPU): it is not part of this score and is graded separately on a GPU.\nbackend: cpu, h100-sxm (emulated) (cc 9.0)\nseed: 12345",
  "score": 30.0,
  "tests": [
    {
      "max_score": 30.0,
      "name": "tiled: Shared-memory tiles, sizes that are multiples of TILE",
      "output": "",
      "score": 30.0,
      "status": "passed",
      "visibility": "visible"
    },
    {
      "max_score": 40.0,
      "name": "tiled_any: Shared-memory tiles for any size (partial tiles zero-filled)",
      "output": "wrong result in case 29 x 29 x 29 (m x n k):\nexpected 12.5 at row 17, column 3, got 0.0\nnote: race check not run: no second thread order",
      "score": 0.0,
      "status": "failed",
      "visibility": "visible"
    },
    {
      "name": "speed: tiled_any (not measured, 30 points graded on a GPU)",
      "output": "Speed is measured on a GPU only: not measured here.",
      "visibility": "visible"
    }
  ],
  "visibility": "visible"
})json");
}

TEST(Report, SetScores) {
  Scores s;
  s.exercises = {{"tiled", "T", GradeStatus::kPassed, 30, 30, "", {}}};
  s.total = 30;
  s.max_total = 60;
  s.speed_not_measured = true;
  GradeResult r;
  r.SetScores(s);
  EXPECT_EQ(r.exercises.size(), 1u);
  EXPECT_EQ(r.total, 30);
  EXPECT_EQ(r.max_total, 60);
  EXPECT_TRUE(r.speed_not_measured);
}

// The device line is written and read by the same two functions
// (common/harness/protocol/device_line.h).
TEST(DeviceLine, WhatTheHarnessWritesIsWhatLabgradeReads) {
  DeviceInfo d;
  d.backend = "gpu";
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_capability = "9.0";
  d.driver = "13.0";
  d.runtime = "13.0";
  d.sm_clock_mhz = 1980;
  d.mem_clock_mhz = 2619;
  d.multiprocessors = 132;
  d.l2_bytes = 52428800;
  d.pageable_memory_access = 1;
  const nlohmann::json line = DeviceLine(d);
  EXPECT_EQ(line.at("type"), "device");
  const DeviceInfo back = DeviceFromLine(nlohmann::json::parse(line.dump()));
  EXPECT_EQ(back.name, d.name);
  EXPECT_EQ(back.compute_capability, "9.0");
  EXPECT_EQ(back.driver, "13.0");
  EXPECT_EQ(back.sm_clock_mhz, 1980);
  EXPECT_EQ(back.multiprocessors, 132);
  EXPECT_EQ(back.l2_bytes, 52428800);
  EXPECT_EQ(back.pageable_memory_access, 1);
}

// The line comes from a process the student's code ran in: wrong types read as unknown.
TEST(DeviceLine, FieldsOfTheWrongTypeReadAsUnknown) {
  const DeviceInfo d = DeviceFromLine(nlohmann::json::parse(
      R"({"type": "device", "name": 7, "cc": "9.0", "sm_clock_mhz": "fast", "l2_bytes": 1.5})"));
  EXPECT_EQ(d.name, "");
  EXPECT_EQ(d.compute_capability, "9.0");
  EXPECT_EQ(d.sm_clock_mhz, 0);
  EXPECT_EQ(d.l2_bytes, 0);
  EXPECT_EQ(DeviceFromLine(nlohmann::json::array()).name, "");
}

}  // namespace
}  // namespace labkit
