// GPU backend: where each parameter of a kernel starts in its argument buffer, and how long it is,
// from the driver (cuFuncGetParamInfo), so that a launch's arguments can be recorded as bytes.
// Asked through the driver's entry point table, which sets no runtime error a student could see.
#pragma once

#include <cstddef>
#include <vector>

namespace labkit {

struct ParamSlot {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// False when the driver cannot say (then the launch is one the replay cannot repeat).
bool ParamLayout(const void* kernel_stub, std::vector<ParamSlot>& slots);
// Forgets every layout learnt: a warm replay process's next request loads other kernels, which
// the driver may hand out at the same addresses (warm_replay.h).
void ForgetParamLayouts();

// The argument bytes of a launch (each `args[i]` copied to its slot) and the slots' offsets.
bool PackArguments(const void* kernel_stub, void** args, std::vector<unsigned char>& bytes,
                   std::vector<unsigned>& offsets);

}  // namespace labkit
