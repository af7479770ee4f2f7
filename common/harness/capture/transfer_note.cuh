// The recording half of the transfer wrappers, shared by both backends (transfer_wrap_gpu.cu and
// transfer_hook_emu.cpp only adapt the runtime's signatures): works out which side of the bus each
// pointer is on and notes the transfer, while a TransferCapture is open.
#pragma once

#include <cstddef>

#include "transfer_log.h"

namespace labkit {

// Where `kind` says the source / the destination of a copy is (cudaMemcpyDefault: the host).
MemorySide KindSource(cudaMemcpyKind kind);
MemorySide KindDestination(cudaMemcpyKind kind);

// Where `ptr` lives as the runtime sees it (cudaPointerGetAttributes), or `assumed` where it cannot
// tell. The pointer's real home decides, not the kind the caller passed: with unified addressing a
// device-to-host copy can be asked for as cudaMemcpyDefault.
MemorySide Locate(const void* ptr, MemorySide assumed);

// A transfer whose sides are already known.
void NoteTransfer(const char* call, MemorySide from, MemorySide to, std::size_t bytes);
// A copy between two pointers, each located as above.
void NoteCopy(const char* call, const void* dst, const void* src, std::size_t bytes,
              cudaMemcpyKind kind);
// A copy with one side fixed (a __device__ symbol or a CUDA array: device memory) and the other a
// pointer.
void NoteCopyFromDevice(const char* call, const void* dst, std::size_t bytes, cudaMemcpyKind kind);
// A copy into a __device__ or __constant__ variable (`constant`) from a pointer: device to
// constant where the source is device memory and the variable __constant__.
void NoteCopyToSymbol(const char* call, bool constant, const void* src, std::size_t bytes,
                      cudaMemcpyKind kind);
// Memory set up so that host code can reach what a kernel writes (or the other way round).
void NoteHostVisible(const char* call, std::size_t bytes, TransferKind kind);

}  // namespace labkit
