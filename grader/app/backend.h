// Which machine a submission runs on: a real GPU, or the CPU backend (emu/).
#pragma once

#include <string>

namespace labkit {

enum class Backend { kGpu, kCpu };
enum class BackendChoice { kAuto, kGpu, kCpu };

// The two builds every submission gets: the compiler's defaults, and one with fused multiply-add
// turned off (-fmad=false on nvcc, -ffp-contract=off on g++), which makes the result of an
// ascending-index dot product exact to the bit. A third on request (--tsan), CPU backend only:
// under ThreadSanitizer, which names the two lines of a race between threads of a block.
enum class Flavour { kDefault, kNoFma, kThreadSanitizer };

const char* ToString(Backend backend);
const char* ToString(Flavour flavour);

// True when a CUDA device answers here (nvidia-smi lists one and /dev/nvidia0 exists).
bool GpuPresent();

}  // namespace labkit
