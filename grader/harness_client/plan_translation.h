// A plan recorded by one build of a submission, made the plan of another build of the same
// sources. A plan names kernels, runners and variables by their offsets in the program image that
// recorded it (common/harness/replay_plan.h); the -fmad=false build, and the CPU backend's counting
// and ThreadSanitizer builds, hold the same names at other offsets. Their host code is the same
// code (nvcc's -fmad applies to device code; the CPU backend's -ffp-contract=off changes nothing on
// an x86-64 target without FMA instructions), so the default build's record run has already
// recorded what theirs would: translating its plans saves each of them a record process, which on
// a GPU is a CUDA context that queues behind a batch's others.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "replay_plan.h"

namespace labkit {

class PlanTranslation {
 public:
  // From the names labgrade wrote beside each build (student_image.h, StudentSymbolsPath); nullopt
  // when either file is missing or unreadable.
  static std::optional<PlanTranslation> Between(const std::string& from_executable,
                                                const std::string& to_executable);
  // From {"name": [offset, size, "code" | "data"]} objects as text (for tests).
  static std::optional<PlanTranslation> FromJson(const std::string& from_symbols,
                                                 const std::string& to_symbols);

  // The offset in the other program of the thing at `offset` in the recording one: the same
  // name's offset plus the distance into it. nullopt when `offset` lies in nothing of the
  // student's, or its name is not in the other program; for data, when it has another size there
  // (another layout); for code, anywhere but its start (the builds' code differs inside).
  std::optional<int64_t> Offset(int64_t offset) const;

  // Every image reference of `plan` translated; false (and `plan` partly changed) when one has
  // no counterpart: record in the other build instead.
  bool Translate(replay::Plan& plan) const;

 private:
  struct Place {
    int64_t offset = 0, size = 0;
    bool code = false;
  };
  std::map<int64_t, std::pair<Place, std::string>> from_;  // by start offset
  std::map<std::string, Place> to_;
};

// Reads the plan at `from_path` (a file the record process wrote: bounded, never followed through a
// link), translates it and writes it to `to_path`. False when it cannot: the caller records in
// the other build instead. The bound is what any replay accepts (kMaxPlanBytes): a plan the
// default build replays but this would not translate sent the other builds back to record runs of
// their own, where a program can tell them apart (r7_oversized_plan_records_on_its_own).
bool TranslatePlanFile(const PlanTranslation& translation, const std::string& from_path,
                       const std::string& to_path,
                       std::size_t max_bytes = replay::kMaxPlanBytes);

}  // namespace labkit
