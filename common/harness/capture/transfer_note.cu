#include "transfer_note.cuh"

namespace labkit {

MemorySide KindSource(cudaMemcpyKind kind) {
  return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ? MemorySide::kDevice
                                                                            : MemorySide::kHost;
}

MemorySide KindDestination(cudaMemcpyKind kind) {
  return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ? MemorySide::kDevice
                                                                            : MemorySide::kHost;
}

MemorySide Locate(const void* ptr, MemorySide assumed) {
  if (ptr == nullptr) return assumed;
  // Asking must not change what the student's code sees: a failed query sets the runtime's last
  // error, which is cleared again unless an error of the student's was already waiting there.
  const cudaError_t waiting = cudaPeekAtLastError();
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    if (waiting == cudaSuccess) cudaGetLastError();
    return assumed;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged
             ? MemorySide::kDevice
             : MemorySide::kHost;  // pinned or ordinary (unregistered) host memory
}

void NoteTransfer(const char* call, MemorySide from, MemorySide to, std::size_t bytes) {
  if (!CapturingTransfers()) return;
  RecordTransfer({call, CopyKind(from, to), bytes});
}

void NoteCopy(const char* call, const void* dst, const void* src, std::size_t bytes,
              cudaMemcpyKind kind) {
  if (!CapturingTransfers()) return;
  NoteTransfer(call, Locate(src, KindSource(kind)), Locate(dst, KindDestination(kind)), bytes);
}

void NoteCopyFromDevice(const char* call, const void* dst, std::size_t bytes, cudaMemcpyKind kind) {
  if (!CapturingTransfers()) return;
  NoteTransfer(call, MemorySide::kDevice, Locate(dst, KindDestination(kind)), bytes);
}

void NoteCopyToSymbol(const char* call, bool constant, const void* src, std::size_t bytes,
                      cudaMemcpyKind kind) {
  if (!CapturingTransfers()) return;
  const MemorySide from = Locate(src, KindSource(kind));
  if (constant && from == MemorySide::kDevice)
    return RecordTransfer({call, TransferKind::kDeviceToConstant, bytes});
  NoteTransfer(call, from, MemorySide::kDevice, bytes);
}

void NoteHostVisible(const char* call, std::size_t bytes, TransferKind kind) {
  if (!CapturingTransfers()) return;
  RecordTransfer({call, kind, bytes});
}

}  // namespace labkit
