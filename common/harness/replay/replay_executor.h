// The replay side of record and replay (replay_plan.h): runs a recorded plan on the harness's own
// matrices, in a process where none of the student's host code runs. Everything in the plan is
// checked before it is used: regions and offsets against the buffers they name, launches against
// the student's own kernels, variable writes against the student's own variables (the lists come
// from labgrade, which read them off the linked program; the plan cannot name anything else).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "replay_plan.h"
#include "replay_recorder.h"

namespace labkit::replay {

struct ImageRange {
  int64_t offset = 0;  // from the start of the program image
  int64_t size = 0;
};

// What of the program a plan may use, besides device memory.
struct StudentImage {
  std::vector<ImageRange> kernels;    // a launch starts one of them
  std::vector<ImageRange> runners;    // CPU backend: a launch's closure runner starts one of them
  std::vector<ImageRange> variables;  // a variable write falls inside one of them
  std::vector<ImageRange> constants;  // CPU backend: those of the variables that are __constant__
  // CPU backend: the data of the student's objects by section, __constant__ ones left out: what
  // the emulator counts as global memory (CountVariablesAsGlobalMemory).
  std::vector<ImageRange> global_data;
  // CPU backend: the student's writable data in pages of its own (at most one range), which the
  // emulator keeps unreadable during counted launches so that it sees every access there.
  std::vector<ImageRange> watched_data;
  // GPU, the kit's own replay program (student_device_code.h): the student's device code as
  // fatbinaries beside the request, and the mangled names of the things the offsets above name in
  // the linked program, which the record run's plans use. Empty: the replay runs in the linked
  // program and reaches its kernels and variables at their offsets.
  std::vector<std::string> fatbins;
  std::vector<std::pair<int64_t, std::string>> kernel_names, variable_names;
  // The variables the fatbinaries' own symbol tables hold (grader/device_code/
  // fatbin_variables.h): all of them, as names to try (device_names.h), and the __constant__
  // ones; where labgrade could not read every table, every variable counts as __constant__.
  std::vector<std::string> device_variable_names, constant_names;
  bool constants_complete = false;
};

// One of the harness's host arrays in the replay, in the place of the record run's array of the
// same index (replay_recorder.h, HostArray): uploads read it, downloads write it.
struct ReplayHostArray {
  void* data = nullptr;
  uint64_t bytes = 0;
};

// One replay of a plan on A, B and C (and on the host arrays, for a plan recorded with some). Alive until the caller has synchronised: the allocations the
// plan makes are freed when it ends, as a function's own cudaFree would only after its kernels.
class PlanReplay {
 public:
  PlanReplay(const StudentImage& image, const HarnessMatrix& A, const HarnessMatrix& B,
             const HarnessMatrix& C, std::vector<ReplayHostArray> host = {});
  ~PlanReplay();
  PlanReplay(const PlanReplay&) = delete;
  PlanReplay& operator=(const PlanReplay&) = delete;

  // Fills every allocation the plan makes with `byte` before its first use, so that bytes no
  // kernel wrote are recognisable (lab 02 tells a result never written on the device this way).
  void PoisonAllocations(unsigned char byte);

  // "" when every operation was issued (errors of the kernels themselves surface at the caller's
  // synchronisation), else what the function did that the replay cannot repeat. A failing CUDA
  // call throws CudaError, as in the harness's other work.
  std::string Run(const Plan& plan);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace labkit::replay
