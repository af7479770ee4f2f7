// The request's "emulator" object: the CPU backend's thread order, worker threads and access
// counting for this run (labkit_emu/run_settings.h). labgrade passes them in the request, not in
// the environment, so that nothing a constructor of the student's code can see (argv, envp) tells
// one check's run from another's (docs/THREAT_MODEL.md). The run applies them once the request is
// read, before its first case.
#pragma once

#include <nlohmann/json.hpp>

namespace labkit {

// Sets what `request["emulator"]` asks; nothing when it is absent. Throws std::runtime_error for
// a malformed object, and on a GPU build for any (a GPU has no emulator to set: labgrade's bug).
void ApplyEmulatorSettings(const nlohmann::json& request);

// Before each case: counts its accesses when the request asked for counting and `counted` (the
// case is one the run counts); the CPU backend only, nothing on a GPU.
void CountAccessesInCase(bool counted);

}  // namespace labkit
