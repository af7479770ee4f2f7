// The student's device state that outlives a replayed plan, as the program started: its
// __constant__ and __device__ variables, and the kernel attributes plans change. labgrade replays
// several exercises in one process (each process start is a CUDA context, and on a GPU shared by a
// class those queue one behind another); putting this state back between exercises makes each
// start as it would in a process of its own, so that a constant one exercise's plan set cannot
// make another exercise pass.
//
// Not covered: a function-scope `static __device__` variable (no host symbol names it) and the
// device heap of in-kernel malloc. Both are rare in these labs; a pass that needs either of them
// left behind by another exercise is the only way this could differ from separate processes.
#pragma once

#include <cstdint>
#include <vector>

#include "replay_executor.h"

namespace labkit::replay {

class InitialDeviceState {
 public:
  // Reads every variable of `image` that is a device variable (on a GPU, one the program
  // registered; the CPU backend's are plain memory); call before any plan has run.
  explicit InitialDeviceState(const StudentImage& image);

  // Writes every variable back, and every kernel attribute a plan changed since the start.
  void Restore() const;

 private:
  struct Variable {
    const void* symbol = nullptr;  // in a linked program
    std::vector<unsigned char> bytes;
    char* device = nullptr;  // in the kit's replay program: the loaded variable's device address
  };
  std::vector<Variable> variables_;
};

// CPU backend: names the student's data to the emulator as global memory (labgrade's lists: the
// data sections of the student's objects, `global_data`, read off the link's map, so that no
// variable escapes by its kind of symbol or its name; else each variable), __constant__ variables
// left out, so that the counts of the launches after it
// see a kernel's accesses to them as a GPU's counters see its loads from device memory: a kernel
// that copied A and B into __device__ arrays and computed from those shows the loads, however
// small the arrays and however they lie. A GPU's counters do not count constant loads, so neither
// does this (lab 04 reads its block side from a __constant__ variable again and again); labgrade
// holds __constant__ variables to a GPU's 64 KiB, which serve at most 8192 / (n * min(m, k)) of a
// product's operand reads, under 0.4 at the counted shapes. Nothing on a GPU.
void CountVariablesAsGlobalMemory(const StudentImage& image);

// GPU backend: called for each variable the program registers with the CUDA runtime (the link
// wrap of __cudaRegisterVar, registered_variables_gpu.cu), `constant` for a __constant__ one. Only
// those are read there: asking the runtime about any other address is an API error, which
// compute-sanitizer reports as a finding.
void NoteRegisteredVariable(const void* host_shadow, bool constant);

// Whether `symbol` is one of the student's __constant__ variables: registered as one on a GPU;
// on the CPU backend, inside one of the image's `constants`, which CountVariablesAsGlobalMemory
// names to the emulator. The transfer wraps tell a copy of device memory into
// constant memory by it (transfer_log.h, kDeviceToConstant).
bool IsConstantVariable(const void* symbol);

// Called by the replay before it changes `attribute` of `kernel`: the first call for a pair keeps
// the value the program started with, for InitialDeviceState::Restore.
void KeepAttributeBeforeChange(const void* kernel, int attribute);
// Forgets the values kept: a warm replay process's next request launches other kernels
// (warm_replay.h).
void ForgetKeptAttributes();

}  // namespace labkit::replay
