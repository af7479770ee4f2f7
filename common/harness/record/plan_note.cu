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

void PlanCopy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  if (!replay::Recording()) return;
  // A row per operation keeps the replay to the plain copies it checks; a height past this would
  // make a plan of more operations than the replay reads (replay_plan.h, kMaxOps).
  constexpr std::size_t kMaxRows = 16384;
  if (height > kMaxRows || width > dpitch || width > spitch)
    return PlanUnsupportedCopy("cudaMemcpy2D", dst, kind);
  const bool dst_device = OnDevice(dst, KindDestination(kind));
  const bool src_device = OnDevice(src, KindSource(kind));
  for (std::size_t r = 0; r < height; ++r)
    replay::NoteCopy(static_cast<char*>(dst) + r * dpitch, dst_device,
                     static_cast<const char*>(src) + r * spitch, src_device, width);
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
