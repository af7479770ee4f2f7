// GPU backend: the harness is linked with `--wrap` on CUDA's copy and host-memory functions
// (kGpuLinkWraps in link_wraps.h), so the student's calls of them land here, are noted
// (transfer_note.cuh), and go on unchanged. cudart is linked statically, so --wrap reaches every
// reference in the student's object.
#include <cuda_runtime.h>

#include "initial_device_state.h"
#include "plan_note.cuh"
#include "replay_recorder.h"
#include "transfer_note.cuh"

using labkit::MemorySide;

// __wrap_NAME notes the call with NOTE (which sees the parameters and `call`, the function's
// name) and hands it to __real_NAME, the runtime's own function.
#define LABKIT_WRAP(NAME, PARAMS, ARGS, NOTE)   \
  extern "C" cudaError_t __real_##NAME PARAMS;  \
  extern "C" cudaError_t __wrap_##NAME PARAMS { \
    const char* call = #NAME;                   \
    NOTE;                                       \
    return __real_##NAME ARGS;                  \
  }
// The same for NAME and its per-thread-default-stream twin NAME##SUFFIX (same parameters).
#define LABKIT_WRAP_WITH_TWIN(NAME, SUFFIX, PARAMS, ARGS, NOTE) \
  LABKIT_WRAP(NAME, PARAMS, ARGS, NOTE)                         \
  LABKIT_WRAP(NAME##SUFFIX, PARAMS, ARGS, NOTE)

namespace {

MemorySide SideOf(cudaArray_const_t array, const void* ptr, MemorySide assumed) {
  return array != nullptr ? MemorySide::kDevice : labkit::Locate(ptr, assumed);
}

void Note3D(const char* call, const cudaMemcpy3DParms* p) {
  if (p == nullptr || !labkit::CapturingTransfers()) return;
  // Bytes for pointer copies (width is in bytes there); elements for arrays, which no matmul uses.
  const std::size_t bytes = p->extent.width * p->extent.height * p->extent.depth;
  labkit::NoteTransfer(call, SideOf(p->srcArray, p->srcPtr.ptr, labkit::KindSource(p->kind)),
                       SideOf(p->dstArray, p->dstPtr.ptr, labkit::KindDestination(p->kind)), bytes);
}

void PlanUnsupported3D(const char* call, const cudaMemcpy3DParms* p) {
  if (p != nullptr && (p->dstArray != nullptr || p->dstPtr.ptr != nullptr))
    labkit::PlanUnsupportedCopy(call, p->dstArray != nullptr ? nullptr : p->dstPtr.ptr,
                                p->dstArray != nullptr ? cudaMemcpyHostToDevice : p->kind);
}

void NoteBatch(const char* call, void* const* dsts, const void* const* srcs, const size_t* sizes,
               size_t count) {
  if (dsts == nullptr || srcs == nullptr || sizes == nullptr) return;
  for (size_t i = 0; i < count; ++i)
    labkit::NoteCopy(call, dsts[i], srcs[i], sizes[i], cudaMemcpyDefault);
}

}  // namespace

// Copies between pointers.
LABKIT_WRAP_WITH_TWIN(cudaMemcpy, _ptds,
                      (void* dst, const void* src, size_t count, cudaMemcpyKind kind),
                      (dst, src, count, kind),
                      (labkit::NoteCopy(call, dst, src, count, kind),
                       labkit::PlanCopy(dst, src, count, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyAsync, _ptsz,
                      (void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       cudaStream_t stream),
                      (dst, src, count, kind, stream),
                      (labkit::NoteCopy(call, dst, src, count, kind),
                       labkit::PlanCopy(dst, src, count, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy2D, _ptds,
                      (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, cudaMemcpyKind kind),
                      (dst, dpitch, src, spitch, width, height, kind),
                      (labkit::NoteCopy(call, dst, src, width* height, kind),
                       labkit::PlanCopy2D(dst, dpitch, src, spitch, width, height, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy2DAsync, _ptsz,
                      (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, cudaMemcpyKind kind, cudaStream_t stream),
                      (dst, dpitch, src, spitch, width, height, kind, stream),
                      (labkit::NoteCopy(call, dst, src, width* height, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy3D, _ptds, (const cudaMemcpy3DParms* p), (p),
                      (Note3D(call, p), PlanUnsupported3D(call, p)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy3DAsync, _ptsz, (const cudaMemcpy3DParms* p, cudaStream_t stream),
                      (p, stream), (Note3D(call, p), PlanUnsupported3D(call, p)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyBatchAsync, _ptsz,
                      (void* const* dsts, const void* const* srcs, const size_t* sizes,
                       size_t count, cudaMemcpyAttributes* attrs, size_t* attrs_idxs,
                       size_t num_attrs, cudaStream_t stream),
                      (dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, stream),
                      (NoteBatch(call, dsts, srcs, sizes, count), labkit::replay::NoteUnsupported(call)))

// Copies with a __device__ / __constant__ symbol or a CUDA array on one side: device memory.
// cudaMemcpyToSymbol from the host is how lab 04 sets its __constant__ block side; it is noted as
// host_to_device, which the grader allows. From device memory into a __constant__ variable it is
// device_to_constant, which the measured technique refuses (kernels read it uncounted).
LABKIT_WRAP_WITH_TWIN(
    cudaMemcpyToSymbol, _ptds,
    (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
    (symbol, src, count, offset, kind),
    (labkit::NoteCopyToSymbol(call, labkit::replay::IsConstantVariable(symbol), src, count, kind),
     labkit::PlanCopyToSymbol(symbol, offset, src, count, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyToSymbolAsync, _ptsz,
                      (const void* symbol, const void* src, size_t count, size_t offset,
                       cudaMemcpyKind kind, cudaStream_t stream),
                      (symbol, src, count, offset, kind, stream),
                      (labkit::NoteCopyToSymbol(call, labkit::replay::IsConstantVariable(symbol),
                                                src, count, kind),
                       labkit::PlanCopyToSymbol(symbol, offset, src, count, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyFromSymbol, _ptds,
                      (void* dst, const void* symbol, size_t count, size_t offset,
                       cudaMemcpyKind kind),
                      (dst, symbol, count, offset, kind),
                      (labkit::NoteCopyFromDevice(call, dst, count, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyFromSymbolAsync, _ptsz,
                      (void* dst, const void* symbol, size_t count, size_t offset,
                       cudaMemcpyKind kind, cudaStream_t stream),
                      (dst, symbol, count, offset, kind, stream),
                      (labkit::NoteCopyFromDevice(call, dst, count, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyFromArray, _ptds,
                      (void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                       size_t count, cudaMemcpyKind kind),
                      (dst, src, w_offset, h_offset, count, kind),
                      (labkit::NoteCopyFromDevice(call, dst, count, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpyFromArrayAsync, _ptsz,
                      (void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                       size_t count, cudaMemcpyKind kind, cudaStream_t stream),
                      (dst, src, w_offset, h_offset, count, kind, stream),
                      (labkit::NoteCopyFromDevice(call, dst, count, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy2DFromArray, _ptds,
                      (void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind),
                      (dst, dpitch, src, w_offset, h_offset, width, height, kind),
                      (labkit::NoteCopyFromDevice(call, dst, width* height, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))
LABKIT_WRAP_WITH_TWIN(cudaMemcpy2DFromArrayAsync, _ptsz,
                      (void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                       cudaStream_t stream),
                      (dst, dpitch, src, w_offset, h_offset, width, height, kind, stream),
                      (labkit::NoteCopyFromDevice(call, dst, width* height, kind),
                       labkit::PlanUnsupportedCopy(call, dst, kind)))

// Memory a kernel and host code can both reach: a kernel could copy A and B into it for the host.
LABKIT_WRAP(cudaMallocHost, (void** ptr, size_t size), (ptr, size),
            labkit::NoteHostVisible(call, size, labkit::TransferKind::kHostAllocation))
LABKIT_WRAP(cudaHostAlloc, (void** ptr, size_t size, unsigned int flags), (ptr, size, flags),
            labkit::NoteHostVisible(call, size, labkit::TransferKind::kHostAllocation))
LABKIT_WRAP(cudaHostRegister, (void* ptr, size_t size, unsigned int flags), (ptr, size, flags),
            labkit::NoteHostVisible(call, size, labkit::TransferKind::kHostAllocation))
// (cudaMallocManaged is noted by device_memory_wrap_gpu.cu, which also counts it.)
