// The record side of record and replay (replay_plan.h): while a PlanCapture is open around the
// student's function, the link wraps (both backends) report each piece of device work here, and
// it becomes an operation of the case's plan. Outside a capture every Note* call does nothing, so
// the harness's own work is never recorded.
//
// Plain C++: the caller says which side of the bus each pointer is on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "replay_plan.h"

namespace labkit::replay {

// One of the harness's matrices as the function sees it: `data` is the pointer it was given;
// addresses up to `slack` bytes before and after belong to the same allocation (guard zones).
struct HarnessMatrix {
  const void* data = nullptr;
  uint64_t bytes = 0;
  uint64_t slack = 0;
};

// A host array of the harness's that the function is given (replay_plan.h, kHostUpload).
struct HostArray {
  const void* data = nullptr;
  uint64_t bytes = 0;
};

// Open while the student's function runs in a record run (one at a time). `host`: the harness's
// host arrays the function was given, by index; copies from and into them are kept as references.
class PlanCapture {
 public:
  PlanCapture(const HarnessMatrix& A, const HarnessMatrix& B, const HarnessMatrix& C,
              std::vector<HostArray> host = {});
  ~PlanCapture();
  PlanCapture(const PlanCapture&) = delete;
  PlanCapture& operator=(const PlanCapture&) = delete;
  // The plan so far; the capture stays open.
  Plan take();
};

bool Recording();

void NoteAlloc(const void* ptr, uint64_t bytes);
void NoteFree(const void* ptr);
void NoteMemset(const void* dst, int value, uint64_t bytes);
// A plain copy of `bytes` bytes; `*_device` says whether each side is device memory.
void NoteCopy(void* dst, bool dst_device, const void* src, bool src_device, uint64_t bytes);
// A copy into a __constant__ or __device__ variable (its host-side address `symbol`).
void NoteSymbolCopy(const void* symbol, uint64_t offset, const void* src, bool src_device,
                    uint64_t bytes);

struct LaunchNote {
  const void* kernel = nullptr;  // the host-side handle the runtime launches by
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  uint64_t shared_bytes = 0;
  std::vector<unsigned char> arguments;   // the argument bytes, laid out as launched
  std::vector<uint32_t> param_offsets;    // GPU: each parameter's offset in `arguments`
  const void* runner = nullptr;           // CPU backend: the closure's runner
  std::vector<uint32_t> pointer_params;   // CPU backend: pointer parameters' indices ...
  std::vector<uint32_t> pointer_offsets;  // ... and offsets in `arguments`
};
void NoteLaunch(const LaunchNote& launch);
void NoteFuncAttribute(const void* kernel, int attribute, int64_t value);
// A call the replay cannot repeat; the case then fails with `call` named.
void NoteUnsupported(const char* call);

// Offsets in this program's image (code and data), which the record and replay processes share:
// -1 for an address outside it.
int64_t ImageOffset(const void* address);
const void* ImageAddress(int64_t offset);

}  // namespace labkit::replay
