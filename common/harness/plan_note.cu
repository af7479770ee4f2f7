#include "plan_note.cuh"
#include "replay_recorder.h"
#include "transfer_note.cuh"

namespace labkit {
namespace {

bool OnDevice(const void* ptr, MemorySide assumed) {
  return Locate(ptr, assumed) == MemorySide::kDevice;
}

}  // namespace

void PlanCopy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (!replay::Recording()) return;
  replay::NoteCopy(dst, OnDevice(dst, KindDestination(kind)), src, OnDevice(src, KindSource(kind)),
                   bytes);
}

void PlanCopyToSymbol(const void* symbol, std::size_t offset, const void* src, std::size_t bytes,
                      cudaMemcpyKind kind) {
  if (!replay::Recording()) return;
  replay::NoteSymbolCopy(symbol, offset, src, OnDevice(src, KindSource(kind)), bytes);
}

void PlanUnsupportedCopy(const char* call, const void* dst, cudaMemcpyKind kind) {
  if (!replay::Recording()) return;
  if (OnDevice(dst, KindDestination(kind))) replay::NoteUnsupported(call);
}

}  // namespace labkit
