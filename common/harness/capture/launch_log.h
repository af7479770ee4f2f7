// The kernels the student's function launched, as seen by the harness: the grader checks the
// technique (shared memory, barriers) on the kernels that actually ran, not on a kernel that merely
// exists in the file, and catches functions that compute on the CPU and launch nothing.
//
// Filled by a backend-specific hook: launch_wrap_gpu.cu (the link wraps CUDA's launch entry point)
// or launch_hook_emu.cpp (the CPU backend's launch observer).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace labkit {

struct LaunchRecord {
  std::string kernel;  // mangled name
  const void* function = nullptr;  // what the runtime API takes for this kernel (host stub)
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned long long dynamic_shared_bytes = 0;
  // CPU backend, in a counting run (LABKIT_EMU_COUNT_ACCESSES): what the launch's threads did to
  // memory, as name and count ("global_load_bytes", ...; emu's labkit_emu/access_counts.h).
  // Empty otherwise.
  std::vector<std::pair<const char*, unsigned long long>> accesses;
};

// Records launches while alive (one at a time); nested or concurrent captures are not needed.
class LaunchCapture {
 public:
  LaunchCapture();
  ~LaunchCapture();
  LaunchCapture(const LaunchCapture&) = delete;
  LaunchCapture& operator=(const LaunchCapture&) = delete;
  std::vector<LaunchRecord> take();
};

// Called by the backend hooks for every launch.
void RecordLaunch(const LaunchRecord& record);

// Installs the backend's hook, if it needs installing (the CPU backend's observer); idempotent.
void InstallLaunchHook();

// CPU backend: a case's launches, as the case ends, with their counts taken from the emulator's
// sealed store (labkit_emu/access_counts.h, sealed_counts_of_case) in place of the copies made
// when each launch ended. Those copies are on the heap, where a kernel launched later in the case
// could change them before the case's line is written; the sealed ones no kernel can write. The
// n-th launch takes the n-th sealed count; a launch with none has none, and counts left over go to
// the last launch (a launch taken out of the list does not take its count away). A GPU's counts
// never pass through the student's program: nothing to do there.
void UseSealedCounts(std::vector<LaunchRecord>& launches);

}  // namespace labkit
