// labgrade's command line, parsed into plain data (main.cpp acts on it). CLI11 reads the words;
// every value is checked here, and errors are one line each ("'check' needs a lab, ...").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "result.h"

namespace labkit {

enum class Requirement {
  kNone,       // exit 0 whatever the score
  kFull,       // exit 1 unless every correctness point was earned (speed where measured too)
  kGivenOnly,  // exit 1 unless the graded exercises all scored 0 and nothing crashed the grader
};

struct CheckCommand {
  std::string lab;
  std::string src;  // empty: the lab's starter folder
  std::optional<uint64_t> seed;
  std::string json_path;
  std::string gradescope_dir;
  BackendChoice backend = BackendChoice::kAuto;
  Requirement require = Requirement::kNone;
  std::string work_dir;  // empty: a fresh temporary folder, removed afterwards
  bool color = false;
  bool thread_sanitizer = false;  // --tsan
};

struct BatchCommand {
  std::string lab;
  std::string submissions;
  std::string out;
  int jobs = 0;  // 0: one per CPU core
  std::optional<uint64_t> seed;
  BackendChoice backend = BackendChoice::kAuto;
  bool regrade_all = false;
  std::vector<std::string> regrade;
};

struct BundleCommand {
  std::string lab;
  std::string out;
};

struct StarterOptions {
  std::string lab;
  bool check_only = false;
};

struct CliCommand {
  enum class Kind { kHelp, kCheck, kStarter, kGrade, kBundle } kind = Kind::kHelp;
  CheckCommand check;
  BatchCommand batch;
  BundleCommand bundle;
  StarterOptions starter;
  std::string manifest;  // empty: the one of this build
  std::string help;      // kHelp: the text to print (the overview, or one command's help)
};

Result<CliCommand> ParseCommandLine(int argc, const char* const* argv);
const char* UsageText();

// Exit statuses, documented in `labgrade --help` and the README.
constexpr int kExitGraded = 0;
constexpr int kExitRequirementNotMet = 1;
constexpr int kExitUsage = 2;
constexpr int kExitMissing = 3;   // unknown lab, missing folder or file, unbuilt kit
constexpr int kExitInternalError = 4;  // a fault of the kit's own (an exception in labgrade)
constexpr int kExitNoGpu = 77;    // --backend gpu on a machine without one (CTest: skipped)

}  // namespace labkit
