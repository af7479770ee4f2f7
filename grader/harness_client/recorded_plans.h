// Record and replay (docs/THREAT_MODEL.md): the student's function runs in a record process on
// inputs of the harness's own, which writes the device work of each case as a plan; the replay
// runs those plans on the cases' inputs. A record run serves every later check of the same program
// whose cases it holds (PlanKey in recorded_plans.cpp), so that a batch sharing a GPU starts one
// record process per program and not one per check.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness_runner.h"

namespace labkit {

// What a record run left: its plans' folder, how its process ended, the emulator's notes on the
// function's host-side calls.
struct Recording {
  std::string dir;
  ProcessResult process;
  bool finished = false;  // the record harness reached its end
  // The device-memory budget's first refusal there, as the record harness reported it.
  std::optional<MemoryRefusal> memory_refused;
  std::vector<nlohmann::json> diagnostics;
  // Every case the record run was asked for, by what its plan depends on (PlanKey), with the id
  // its plan file is named after.
  std::map<std::string, std::string> plan_ids;

  // The id of the plan this recording holds for `key`, if it can serve it: it was asked for the
  // case and wrote its plan, or it reached its end (a plan missing then was removed by the
  // submission, which the replay reports). A case it never got to, because the function crashed
  // or hung on an earlier one, is recorded again, so that the crash is told where it happened.
  std::optional<std::string> PlanFor(const std::string& key) const;
};

// The plans one replay needs, each from the recording that holds it.
struct RecordedPlans {
  Recording record;  // the record run that speaks for them (an unfinished one, if any)
  std::vector<std::pair<std::string, std::string>> sources;  // replayed id -> recorded plan path
};

// Runs the function once per program for every case a check asks for: a later check whose cases
// earlier recordings hold replays their plans (see PlanKey). Otherwise a record process runs for
// this request's cases, then `record_also`.
// `dir` is the replay's folder (ending with '/'); a record run of its own gets one beside it.
RecordedPlans Record(ProcessRunner& runner, const std::string& executable, const std::string& dir,
                     const HarnessOptions& options, const std::vector<MatrixCase>& cases);

// Hands the recorded plans to the replay's folder, each under the id of the case that replays it
// (copied by labgrade: the replay process cannot read the record's folder, nor the record process
// write the replay's).
void CopyPlans(const RecordedPlans& recorded, const std::string& dir,
               const std::vector<MatrixCase>& cases, bool timing);

}  // namespace labkit
