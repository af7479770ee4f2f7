// report: the result of grading one submission, and its three renderings:
//   - a short terminal summary for the student,
//   - JSON for tools (docs/RESULTS_SCHEMA.md, with a schema_version),
//   - Gradescope's results.json.
// All three are pure functions of a GradeResult: the same result prints the same bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device_info.h"
#include "result.h"
#include "scoring.h"

namespace labkit {

// Bumped when a field changes meaning or goes away; adding a field does not bump it.
constexpr int kResultsSchemaVersion = 1;

struct GradeResult {
  std::string lab;  // lab id
  std::string lab_title;
  std::string submission;  // the folder graded, as given on the command line
  std::string backend;     // "gpu" or "cpu"
  DeviceInfo device;
  uint64_t seed = 0;
  std::string timestamp;  // ISO 8601 UTC, "2025-03-01T14:03:07Z"
  double execution_time_seconds = 0;
  std::vector<ExerciseResult> exercises;
  std::optional<SpeedResult> speed;
  double total = 0;
  double max_total = 0;
  bool speed_not_measured = false;

  // Copies exercises, speed and totals from a scoring.
  void SetScores(const Scores& scores);
};

struct TerminalOptions {
  bool color = false;    // ANSI colours
  bool unicode = false;  // ✓ / ✗ instead of PASS / FAIL
};

// Points as a person writes them: 30, 7.89, 17.5.
std::string FormatPoints(double points);

std::string FormatTerminal(const GradeResult& result, const TerminalOptions& options = {});

// What labgrade says where the GPU lets kernels reach host memory (DeviceInfo's
// pageable_memory_access): in the report, and once per batch.
inline constexpr char kKernelsReachHostMemory[] =
    "kernels on this GPU can reach host memory (pageable memory access), the kit's replay "
    "program's own included: a student's kernel could change what the kit reads there "
    "(docs/THREAT_MODEL.md)";

nlohmann::json ToJson(const GradeResult& result);
// Reads what ToJson writes (schema_version 1). Errors name the missing or mistyped field.
Result<GradeResult> GradeResultFromJson(const nlohmann::json& json);

struct GradescopeOptions {
  std::string visibility = "visible";  // of the tests and the submission's results
};
// Gradescope's results.json: score, execution_time, output, tests[{name, score, max_score, status,
// output, visibility}]. The speed item appears when the lab has one. Not measured (CPU backend), it
// is shown without score, max_score or status (Gradescope's unscored test), the score is the
// correctness points alone, and the output says so.
nlohmann::json ToGradescope(const GradeResult& result, const GradescopeOptions& options = {});

}  // namespace labkit
