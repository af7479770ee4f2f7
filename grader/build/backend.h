// Which machine a submission runs on: a real GPU, or the CPU backend (emu/).
#pragma once

#include <string>
#include <vector>

namespace labkit {

enum class Backend { kGpu, kCpu };
enum class BackendChoice { kAuto, kGpu, kCpu };

// The two builds every submission gets: the compiler's defaults, and one with fused multiply-add
// turned off (-fmad=false on nvcc, -ffp-contract=off on g++), which makes the result of an
// ascending-index dot product exact to the bit. A third on request (--tsan), CPU backend only:
// under ThreadSanitizer, which names the two lines of a race between threads of a block. A fourth
// when a technique check measures behaviour (lab.yaml `technique.measured`), CPU backend only:
// every load and store calls the emulator, which counts them (emu's labkit_emu/access_counts.h).
enum class Flavour { kDefault, kNoFma, kThreadSanitizer, kCounting };

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
  // technique.measured is counted in a build of its own (Flavour::kCounting), the emulator
  // counting every access and barrier; on a GPU, Nsight Compute counts the default build's loads
  // and stores, and has no counter of barriers.
  bool counts_in_counting_build;
  bool counts_barriers;
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
