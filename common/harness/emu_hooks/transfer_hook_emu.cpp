// CPU backend: the harness is linked with `--wrap` on emu's copy and host-memory functions
// (kEmuLinkWraps in link_wraps.h), so the student's calls of them land here, are noted
// (transfer_note.cuh), and go on unchanged. emu's functions have C++ names; each wrapper takes the
// wrapped name through an asm label built from the same macro as the link line, so the two cannot
// drift apart.
#include "initial_device_state.h"
#include "labkit_emu/runtime_api.h"
#include "link_wraps.h"
#include "plan_note.cuh"
#include "replay_recorder.h"
#include "transfer_note.cuh"

// __wrap_<SYMBOL> notes the call with NOTE (which sees the parameters and `call`) and hands it to
// __real_<SYMBOL>, emu's own function. NAME is what the student wrote, for the record.
#define LABKIT_EMU_WRAP(SYMBOL, NAME, PARAMS, ARGS, NOTE)                     \
  extern "C" cudaError_t labkit_real_##NAME PARAMS __asm__("__real_" SYMBOL); \
  extern "C" cudaError_t labkit_wrap_##NAME PARAMS __asm__("__wrap_" SYMBOL); \
  extern "C" cudaError_t labkit_wrap_##NAME PARAMS {                          \
    const char* call = #NAME;                                                 \
    NOTE;                                                                     \
    return labkit_real_##NAME ARGS;                                           \
  }

LABKIT_EMU_WRAP(LABKIT_EMU_MEMCPY, cudaMemcpy,
                (void* dst, const void* src, size_t count, cudaMemcpyKind kind),
                (dst, src, count, kind),
                (labkit::NoteCopy(call, dst, src, count, kind),
                 labkit::PlanCopy(dst, src, count, kind)))
LABKIT_EMU_WRAP(LABKIT_EMU_MEMCPY_ASYNC, cudaMemcpyAsync,
                (void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream),
                (dst, src, count, kind, stream),
                (labkit::NoteCopy(call, dst, src, count, kind),
                 labkit::PlanCopy(dst, src, count, kind)))
LABKIT_EMU_WRAP(LABKIT_EMU_MEMCPY_2D, cudaMemcpy2D,
                (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                 size_t height, cudaMemcpyKind kind),
                (dst, dpitch, src, spitch, width, height, kind),
                (labkit::NoteCopy(call, dst, src, width* height, kind),
                 labkit::PlanCopy2D(dst, dpitch, src, spitch, width, height, kind)))
LABKIT_EMU_WRAP(LABKIT_EMU_MEMCPY_2D_ASYNC, cudaMemcpy2DAsync,
                (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                 size_t height, cudaMemcpyKind kind, cudaStream_t stream),
                (dst, dpitch, src, spitch, width, height, kind, stream),
                (labkit::NoteCopy(call, dst, src, width* height, kind),
                 labkit::PlanUnsupportedCopy(call, dst, kind)))

// cudaMemcpyToSymbol / cudaMemcpyFromSymbol (and their Async forms) are inline templates in emu's
// runtime_api.h that end in these two. A symbol is an ordinary global on this backend, but it
// stands for device memory.
LABKIT_EMU_WRAP(LABKIT_EMU_COPY_TO_SYMBOL, cudaMemcpyToSymbol,
                (void* symbol, size_t symbol_bytes, const void* src, size_t count, size_t offset,
                 cudaMemcpyKind kind),
                (symbol, symbol_bytes, src, count, offset, kind),
                (labkit::NoteCopyToSymbol(call, labkit::replay::IsConstantVariable(symbol), src,
                                          count, kind),
                 labkit::PlanCopyToSymbol(symbol, offset, src, count, kind)))
LABKIT_EMU_WRAP(LABKIT_EMU_COPY_FROM_SYMBOL, cudaMemcpyFromSymbol,
                (void* dst, const void* symbol, size_t symbol_bytes, size_t count, size_t offset,
                 cudaMemcpyKind kind),
                (dst, symbol, symbol_bytes, count, offset, kind),
                (labkit::NoteCopyFromDevice(call, dst, count, kind),
                 labkit::PlanUnsupportedCopy(call, dst, kind)))

// Memory a kernel and host code can both reach (emu's cudaMallocHost template calls
// cudaHostAlloc).
LABKIT_EMU_WRAP(LABKIT_EMU_MALLOC_HOST, cudaMallocHost, (void** ptr, size_t size), (ptr, size),
                labkit::NoteHostVisible(call, size, labkit::TransferKind::kHostAllocation))
LABKIT_EMU_WRAP(LABKIT_EMU_HOST_ALLOC, cudaHostAlloc, (void** ptr, size_t size, unsigned int flags),
                (ptr, size, flags),
                labkit::NoteHostVisible(call, size, labkit::TransferKind::kHostAllocation))
LABKIT_EMU_WRAP(LABKIT_EMU_MALLOC_MANAGED, cudaMallocManaged,
                (void** ptr, size_t size, unsigned int flags), (ptr, size, flags),
                labkit::NoteHostVisible(call, size, labkit::TransferKind::kManagedAllocation))

// Device memory and the work on it that a record run's plan holds (replay_recorder.h). An
// allocation is noted once the runtime has made it, so these wrap by hand.
extern "C" cudaError_t labkit_real_malloc(void** ptr, size_t size) __asm__("__real_" LABKIT_EMU_MALLOC);
extern "C" cudaError_t labkit_wrap_malloc(void** ptr, size_t size) __asm__("__wrap_" LABKIT_EMU_MALLOC);
extern "C" cudaError_t labkit_wrap_malloc(void** ptr, size_t size) {
  const cudaError_t status = labkit_real_malloc(ptr, size);
  if (status == cudaSuccess && ptr != nullptr) labkit::replay::NoteAlloc(*ptr, size);
  return status;
}
extern "C" cudaError_t labkit_real_malloc_pitch(void** ptr, size_t* pitch, size_t width,
                                                size_t height) __asm__("__real_" LABKIT_EMU_MALLOC_PITCH);
extern "C" cudaError_t labkit_wrap_malloc_pitch(void** ptr, size_t* pitch, size_t width,
                                                size_t height) __asm__("__wrap_" LABKIT_EMU_MALLOC_PITCH);
extern "C" cudaError_t labkit_wrap_malloc_pitch(void** ptr, size_t* pitch, size_t width,
                                                size_t height) {
  const cudaError_t status = labkit_real_malloc_pitch(ptr, pitch, width, height);
  if (status == cudaSuccess && ptr != nullptr && pitch != nullptr)
    labkit::replay::NoteAlloc(*ptr, *pitch * height);
  return status;
}
LABKIT_EMU_WRAP(LABKIT_EMU_FREE, cudaFree, (void* ptr), (ptr), (void)call;
                labkit::replay::NoteFree(ptr))
LABKIT_EMU_WRAP(LABKIT_EMU_MEMSET, cudaMemset, (void* ptr, int value, size_t count),
                (ptr, value, count), (void)call; labkit::replay::NoteMemset(ptr, value, count))
LABKIT_EMU_WRAP(LABKIT_EMU_MEMSET_ASYNC, cudaMemsetAsync,
                (void* ptr, int value, size_t count, cudaStream_t stream),
                (ptr, value, count, stream), (void)call;
                labkit::replay::NoteMemset(ptr, value, count))
LABKIT_EMU_WRAP(LABKIT_EMU_FUNC_SET_ATTRIBUTE, cudaFuncSetAttribute,
                (const void* func, cudaFuncAttribute attr, int value), (func, attr, value),
                (void)call; labkit::replay::NoteFuncAttribute(func, static_cast<int>(attr), value))
