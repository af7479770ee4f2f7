// GPU builds: what the kit's own replay program needs to replay a submission with none of the
// student's host code (common/harness/driver/replay_only_program.cpp, docs/THREAT_MODEL.md). For
// each student object, the fatbinary nvcc put in it (its `.nv_fatbin` section, cut out with
// objcopy); and beside the linked program a list (`<program>.device_code.json`) of those files,
// the program to run, and the mangled names of the kernels and variables the record run's plans
// name by offset. A GPU build without the list is the grader's fault, never a replay in the
// student's own program.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fatbin_variables.h"
#include "process.h"

namespace labkit {

// `<executable>.device_code.json`, which the harness's client reads (harness_request.h,
// DeviceCode).
std::string DeviceCodePath(const std::string& executable);

// That list as the build wrote it: an object whose "fatbins" is an array of paths; null where it
// is missing, unreadable or not that.
nlohmann::json ReadDeviceCodeList(const std::string& executable);

// The bytes of every fatbinary `list` (as ReadDeviceCodeList gives it) names, in its order;
// nullopt where the list is null or any of them cannot be read.
std::optional<std::vector<std::vector<char>>> ReadListedFatbins(const nlohmann::json& list);
// The same for the list beside `executable`.
std::optional<std::vector<std::vector<char>>> ReadBuildFatbins(const std::string& executable);

// The list: {"program": ..., "fatbins": [paths], "kernel_names": [[offset, name]...],
// "variable_names": [...]} with the names from the program's symbols (grader/build/student_image.h,
// StudentSymbolsJson: {"name": [offset, size, "code" | "data"]}), and the fatbinaries' own
// variables (fatbin_variables.h): "device_variable_names" (all), "constant_names" and
// "constants_complete".
nlohmann::json DeviceCodeJson(const std::string& program, const std::vector<std::string>& fatbins,
                              const nlohmann::json& symbols, const FatbinVariables& variables);

struct DeviceCodeOutcome {
  bool written = false;
  // The object (index in `objects`) whose .nv_fatbin section holds more than one fatbinary: the
  // student's source put bytes there. The build refuses it, so that no submission can send its
  // replays back into its own program (where its static initialisers run) on purpose.
  int mixed_section = -1;
  std::string kit_fault;  // else why the list was not written: the grader's fault
};

// Cuts each object's fatbinary out beside `executable` and writes the list; `symbols`: the file
// of the program's names (grader/build/student_image.h, StudentSymbolsPath).
DeviceCodeOutcome WriteDeviceCode(ProcessRunner& runner, const std::vector<std::string>& objects,
                                  const std::string& executable, const std::string& symbols,
                                  const std::string& program);

// The kit's replay program at `here`: linked by `link(here)` the first time in this process for
// these `libraries`, then copied from that first link, into each build's folder, which every
// command of that submission may read (a copy, not a link: no submission's folder shares a file
// with another's). "" where it cannot be made.
std::string LinkedOnceThenCopied(ProcessRunner& runner, const std::vector<std::string>& libraries,
                                 const std::string& here,
                                 const std::function<Command(const std::string&)>& link);

// The compile error a student reads for `file`, whose object's section was not one fatbinary.
std::string MixedSectionMessage(const std::string& file);

}  // namespace labkit
