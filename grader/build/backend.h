// Which machine a submission runs on: a real GPU, or the CPU backend (emu/).
#pragma once

#include <string>
#include <vector>

namespace labkit {

enum class Backend { kGpu, kCpu };
enum class BackendChoice { kAuto, kGpu, kCpu };

// The builds of a submission: the compiler's defaults, and one with fused multiply-add turned off
// (-fmad=false on nvcc, -ffp-contract=off on g++), which makes the result of an ascending-index
// dot product exact to the bit (on the CPU backend made only where the default build holds a
// fused multiply-add instruction: build_plan.h). A third on request (--tsan), CPU backend only:
// under ThreadSanitizer, which names the two lines of a race between threads of a block.
// technique.measured is counted in the default build itself: on the CPU backend every load and
// store of the student's code calls the emulator (emu's labkit_emu/access_counts.h), which counts
// them in a counting run; on a GPU Nsight Compute counts.
enum class Flavour { kDefault, kNoFma, kThreadSanitizer };

// What differs between the backends where a submission is judged, each named for what it changes,
// so that the judge asks for a property instead of branching on which backend it has.
struct BackendTraits {
  const char* name;  // "gpu" or "cpu"
  // The GPU is the emulator's model: the kernels' resource report is handed to it (its occupancy
  // API answers from it), and reports say the device was modelled.
  bool models_the_gpu;
  // Every allocation already sits in its own guarded block (the emulator checks each access), so
  // cases run with each matrix in an allocation of its exact size; a GPU keeps the harness's
  // guard zones around them instead.
  bool exact_allocations;
  // Races are found by running the same build with other thread orders between barriers (and
  // ThreadSanitizer with --tsan); on a GPU by compute-sanitizer racecheck, memcheck beside it.
  bool races_by_thread_order;
  bool thread_sanitizer;
  // technique.measured is counted by the emulator, every access and barrier of the default build
  // (compiled with a call for each access: submission_build.cpp); on a GPU, Nsight Compute counts
  // the default build's loads and stores, and has no counter of barriers.
  bool emulator_counts;
  bool counts_barriers;
  // The kernels are x86-64 code in the object labgrade disassembles anyway (instruction_policy.h),
  // where a fused multiply-add is an instruction of its own: a default build without one is
  // already what -ffp-contract=off would compile (build_plan.h). A GPU's kernels are SASS, which
  // the build does not read.
  bool fma_seen_in_object;
  // Kernels are timed, so the lab's speed item is measured.
  bool times_kernels;
};

const BackendTraits& Traits(Backend backend);

const char* ToString(Backend backend);
const char* ToString(Flavour flavour);

// True when a CUDA device answers here (nvidia-smi lists one and /dev/nvidia0 exists).
bool GpuPresent();

// The GPUs labgrade may spread work over, each as a value for CUDA_VISIBLE_DEVICES: the entries of
// labgrade's own CUDA_VISIBLE_DEVICES where it is set, else every GPU `nvidia-smi -L` lists, by
// UUID (nvidia-smi counts in PCI order, CUDA by default fastest first, so indices could differ).
std::vector<std::string> VisibleGpus();

// The UUIDs in the text of `nvidia-smi -L`, one per device CUDA would see: a GPU split into MIG
// instances stands for its instances.
std::vector<std::string> GpuIdsFromNvidiaSmiList(const std::string& text);

// The entries of a CUDA_VISIBLE_DEVICES value ("0,1", "GPU-...,GPU-..."), blanks and repeats
// dropped.
std::vector<std::string> SplitVisibleDevices(const std::string& value);

}  // namespace labkit
