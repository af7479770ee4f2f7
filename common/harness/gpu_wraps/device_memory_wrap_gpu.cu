// GPU backend: the harness is linked with `--wrap` on CUDA's device-memory allocation and free
// functions (kGpuLinkWraps in link_wraps.h), so that every allocation of the process, the
// student's and the harness's alike, is held to the device-memory budget the grader gives
// (device_memory_budget.h). A refused allocation returns cudaErrorMemoryAllocation, as a full GPU
// would, and says why once on stderr, for the student's own log; labgrade takes the refusal from
// the harness's case line instead (harness_main.cpp), as the program can print anything. Arrays and
// mipmapped arrays (no matmul uses them) and the driver API are not counted.
#include <cuda_runtime.h>

#include <cstdio>

#include "device_memory_budget.h"
#include "replay_recorder.h"
#include "transfer_note.cuh"

namespace {

// Asks the budget for `bytes`; on a refusal prints the note (the first time) and returns false.
bool Admit(const char* call, std::size_t bytes) {
  labkit::DeviceMemoryBudget& budget = labkit::ProcessDeviceMemoryBudget();
  if (budget.Admit(bytes, call)) return true;
  if (budget.refusals() == 1) std::fputs(budget.RefusalNote(call, bytes).c_str(), stderr);
  return false;
}

// The runtime's answer, with a successful allocation of `bytes` at `ptr` counted.
cudaError_t Counted(cudaError_t status, const void* ptr, std::size_t bytes) {
  if (status == cudaSuccess) {
    labkit::ProcessDeviceMemoryBudget().Allocated(ptr, bytes);
    labkit::replay::NoteAlloc(ptr, bytes);  // a region a record run's plan can refer to
  }
  return status;
}

}  // namespace

// __wrap_NAME (and its per-thread-stream twin NAME##_ptsz) for an allocation of `size` bytes into
// *ptr: admitted by the budget, handed to __real_NAME, counted. *ptr is read only after the real
// call has returned, in a statement of its own: as two arguments of one call the order is
// unspecified, and g++ read the caller's old *ptr first, so that no allocation was ever noted.
#define LABKIT_WRAP_ALLOC(NAME, PARAMS, ARGS)                         \
  extern "C" cudaError_t __real_##NAME PARAMS;                        \
  extern "C" cudaError_t __wrap_##NAME PARAMS {                       \
    if (!Admit(#NAME, size)) return cudaErrorMemoryAllocation;        \
    const cudaError_t status = __real_##NAME ARGS;                    \
    return Counted(status, ptr != nullptr ? *ptr : nullptr, size);    \
  }

LABKIT_WRAP_ALLOC(cudaMalloc, (void** ptr, size_t size), (ptr, size))
LABKIT_WRAP_ALLOC(cudaMallocAsync, (void** ptr, size_t size, cudaStream_t stream),
                  (ptr, size, stream))
LABKIT_WRAP_ALLOC(cudaMallocAsync_ptsz, (void** ptr, size_t size, cudaStream_t stream),
                  (ptr, size, stream))
LABKIT_WRAP_ALLOC(cudaMallocFromPoolAsync,
                  (void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream),
                  (ptr, size, pool, stream))
LABKIT_WRAP_ALLOC(cudaMallocFromPoolAsync_ptsz,
                  (void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream),
                  (ptr, size, pool, stream))

// Managed memory is device memory too, and host code can read it: noted as such (transfer_log.h).
extern "C" cudaError_t __real_cudaMallocManaged(void** ptr, size_t size, unsigned int flags);
extern "C" cudaError_t __wrap_cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
  labkit::NoteHostVisible("cudaMallocManaged", size, labkit::TransferKind::kManagedAllocation);
  if (!Admit("cudaMallocManaged", size)) return cudaErrorMemoryAllocation;
  const cudaError_t status = __real_cudaMallocManaged(ptr, size, flags);
  return Counted(status, ptr != nullptr ? *ptr : nullptr, size);
}

// Pitched allocations: the row pitch is known only afterwards, so width x height is asked for and
// pitch x height counted.
extern "C" cudaError_t __real_cudaMallocPitch(void** ptr, size_t* pitch, size_t width,
                                              size_t height);
extern "C" cudaError_t __wrap_cudaMallocPitch(void** ptr, size_t* pitch, size_t width,
                                              size_t height) {
  if (!Admit("cudaMallocPitch", width * height)) return cudaErrorMemoryAllocation;
  const cudaError_t status = __real_cudaMallocPitch(ptr, pitch, width, height);
  return Counted(status, ptr != nullptr ? *ptr : nullptr,
                 (pitch != nullptr ? *pitch : width) * height);
}

extern "C" cudaError_t __real_cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent);
extern "C" cudaError_t __wrap_cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent) {
  if (!Admit("cudaMalloc3D", extent.width * extent.height * extent.depth))
    return cudaErrorMemoryAllocation;
  const cudaError_t status = __real_cudaMalloc3D(pitched, extent);
  if (pitched == nullptr) return status;
  return Counted(status, pitched->ptr, pitched->pitch * extent.height * extent.depth);
}

namespace {

// The budget forgets the pointer; in a warm replay process the allocation is zeroed first, in
// `stream`'s order, so that what one submission's kernels wrote there never reaches the next
// request's allocations (warm_replay.h).
void Forget(void* ptr, cudaStream_t stream) {
  labkit::DeviceMemoryBudget& budget = labkit::ProcessDeviceMemoryBudget();
  if (budget.zero_before_free())
    if (const std::size_t bytes = budget.SizeOf(ptr); bytes > 0)
      (void)cudaMemsetAsync(ptr, 0, bytes, stream);
  budget.Freed(ptr);
  labkit::replay::NoteFree(ptr);
}

}  // namespace

// Frees: forgotten, then the runtime frees them.
extern "C" cudaError_t __real_cudaFree(void* ptr);
extern "C" cudaError_t __wrap_cudaFree(void* ptr) {
  Forget(ptr, nullptr);
  return __real_cudaFree(ptr);
}
extern "C" cudaError_t __real_cudaFreeAsync(void* ptr, cudaStream_t stream);
extern "C" cudaError_t __wrap_cudaFreeAsync(void* ptr, cudaStream_t stream) {
  Forget(ptr, stream);
  return __real_cudaFreeAsync(ptr, stream);
}
extern "C" cudaError_t __real_cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream);
extern "C" cudaError_t __wrap_cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
  Forget(ptr, stream);
  return __real_cudaFreeAsync_ptsz(ptr, stream);
}
