// What of the linked harness a replay may use on the student's behalf (common/harness/
// replay_executor.h): the student's own kernels, their variables and, on the CPU backend, the
// emulator's closure runners, as (offset in the program image, size) pairs read with nm from the
// student's objects and the program labgrade linked. The replay checks every recorded launch and
// variable write against these lists, so a plan (written in a process the student's code ran in)
// cannot reach the kit's own code or data.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "process.h"

namespace labkit {

// One thing of the student's in the linked program, as nm names it.
struct ImageEntry {
  enum Kind { kKernel, kRunner, kVariable } kind = kKernel;
  std::string name;
  bool constant = false;  // a variable the CPU backend's __constant__ placed (ConstantVariables)
  long long offset = 0;  // from the start of the program image
  long long size = 0;
  // A runner's place among the runners of its name, in address order: the emulator's runner
  // template lives in an anonymous namespace, so each object that launches with the same argument
  // types has a copy of the same code under the same name (the kit's beside the student's).
  int copy = 0;
};

// From nm's output (`nm -S --defined-only`) for each object and for the executable. A name the
// executable holds more than once is left out (it could be the kit's), except the runners, which
// are the emulator's own template whichever object instantiated it. `constants`: the names of the
// variables that are __constant__ (CPU backend; ConstantVariables).
std::vector<ImageEntry> StudentImageEntries(const std::vector<std::string>& object_listings,
                                            const std::string& executable_listing,
                                            const std::set<std::string>& constants = {});

// The entries as the replay reads them: {"kernels": [[offset, size]...], "runners": [...],
// "variables": [...], "constants": [...]}, "constants" being the variables that are __constant__
// (on the CPU backend: a GPU's own counters tell constant loads apart). WriteStudentImage adds
// "global_data" on the CPU backend (StudentDataFromMap): what the replay counts as global memory.
nlohmann::json StudentImageJson(const std::vector<ImageEntry>& entries);

// The entries by name ("name#copy" for a runner): {"name": [offset, size, "code" | "data"]}. Another build of the same
// sources names the same things (the -fmad=false build, the CPU backend's counting and
// ThreadSanitizer builds), so that a plan recorded by one can be made the other's
// (plan_translation.h). Written only where labgrade reads it: the replay never does.
nlohmann::json StudentSymbolsJson(const std::vector<ImageEntry>& entries);
std::string StudentSymbolsPath(const std::string& executable);

// From nm's output (`nm -S --defined-only`) for each object and for the executable:
// {"kernels": [[offset, size]...], "runners": [...], "variables": [...]}. A name the executable
// holds more than once is left out (it could be the kit's), except the runners, which are the
// emulator's own template whichever object instantiated it.
nlohmann::json StudentImageFromNm(const std::vector<std::string>& object_listings,
                                  const std::string& executable_listing);

// On the CPU backend the emulator's `__constant__` puts each variable in a section of its own,
// `.emu_constant.<n>` (labkit_emu/qualifiers.h), which nm's System V listing names
// (`nm -S --defined-only -f sysv`): those variables by name, with their sizes in bytes. A GPU has
// 64 KiB of constant memory (kConstantMemoryBytes); the CPU backend counts every other variable as
// global memory (initial_device_state.h).
std::map<std::string, long long> ConstantVariablesFromNm(const std::string& sysv_listing);
inline constexpr long long kConstantMemoryBytes = 64 * 1024;
// "" when `constants` (name -> bytes) fit in a GPU's constant memory, else the compile error the
// student reads: nvcc refuses such a program too (ptxas: "too much global constant data").
std::string ConstantMemoryExceeded(const std::map<std::string, long long>& constants);

// CPU backend: the linker's map of the program (`-Wl,-Map=`), beside it.
std::string StudentMapPath(const std::string& executable);
// The data the student's objects put in the program, as (offset in the program image, size) pairs
// of whole input sections, from the linker's map: every `.data*`, `.bss*` and `.rodata*` section
// of those objects the link kept, but the emulator's `__constant__` ones (`.emu_constant.*`) and
// the compiler's pools of literal constants (`.rodata.cst*`, which only machine code the count
// does not see reads). By section, not by name, so that no variable escapes the count for its
// kind of symbol (an inline variable's `u`), its name (one the kit's objects also have) or its
// size. `image_start`: the address of the image's start (`__executable_start`).
std::vector<std::pair<long long, long long>> StudentDataFromMap(
    const std::string& map, const std::vector<std::string>& objects, long long image_start);

// Runs nm; writes the lists to `path` (beside the executable), and the names beside them
// (StudentSymbolsPath). `constants`: the names of the objects' __constant__ variables
// (ConstantVariablesFromNm). "" or why not.
std::string WriteStudentImage(ProcessRunner& runner, const std::vector<std::string>& objects,
                              const std::string& executable, const std::string& path,
                              const std::set<std::string>& constants);

}  // namespace labkit
