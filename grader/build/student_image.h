// What of the linked harness a replay may use on the student's behalf (common/harness/
// replay_executor.h): the student's own kernels, their variables and, on the CPU backend, the
// emulator's closure runners, as (offset in the program image, size) pairs read with nm from the
// student's objects and the program labgrade linked. The replay checks every recorded launch and
// variable write against these lists, so a plan (written in a process the student's code ran in)
// cannot reach the kit's own code or data.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "process.h"
#include "result.h"

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
// The thread-local variables (`thread_local`, `__thread`) the same listing names, in sections
// `.tbss*` and `.tdata*`. CUDA has none in device code, and the CPU backend cannot see a kernel's
// reads of one at offsets the compiler knows (thread-local storage is where the emulator keeps
// its own state, so it cannot be watched as the student's other data is): labgrade refuses them.
std::vector<std::string> ThreadLocalVariablesFromNm(const std::string& sysv_listing);
// The compile error for `file`'s thread-local variables `names` (mangled).
std::string ThreadLocalRefusal(const std::string& file, const std::vector<std::string>& names);
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

// CPU backend: the student's writable data (`.data*`, `.bss*`) gathered into one output section
// that fills whole pages, which the emulator keeps unreadable while a counted launch runs, so that
// it sees every access a kernel makes there (emu/runtime/src/execution/watched_data.h). The link
// reads the script (StudentDataScript, for the student's objects) from StudentDataScriptPath; the
// image names the section as "watched_data" (WatchedDataFromMap).
inline constexpr const char* kStudentDataSection = ".labkit_student_data";
inline constexpr long long kPageBytes = 4096;
std::string StudentDataScriptPath(const std::string& executable);
// The linker script, or an error for a path it cannot name.
Result<std::string> StudentDataScript(const std::vector<std::string>& objects);
// The section's (offset in the program image, size), or nothing where the link made none (no
// data of the student's).
std::optional<std::pair<long long, long long>> WatchedDataFromMap(const std::string& map,
                                                                  long long image_start);

// Runs nm; writes the lists to `path` (beside the executable), and the names beside them
// (StudentSymbolsPath). `constants`: the names of the objects' __constant__ variables
// (ConstantVariablesFromNm). "" or why not.
std::string WriteStudentImage(ProcessRunner& runner, const std::vector<std::string>& objects,
                              const std::string& executable, const std::string& path,
                              const std::set<std::string>& constants);

}  // namespace labkit
