// The record half of record and replay as the link wraps call it (both backends): locates each
// pointer as the transfer notes do (transfer_note.cuh) and hands the work to the recorder
// (replay_recorder.h). Does nothing outside a record run's capture.
#pragma once

#include <cstddef>

namespace labkit {

// A plain copy of `bytes` bytes.
void PlanCopy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
// A pitched copy (cudaMemcpy2D): kept as one plain copy per row, which is all it moves.
void PlanCopy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                std::size_t width, std::size_t height, cudaMemcpyKind kind);
// A copy into a __constant__ / __device__ variable.
void PlanCopyToSymbol(const void* symbol, std::size_t offset, const void* src, std::size_t bytes,
                      cudaMemcpyKind kind);
// A copy the replay cannot repeat (asynchronous pitched, 3-D, batched, arrays, from a variable): the case
// fails, naming `call`, if it writes device memory (a copy to the host changes nothing there).
void PlanUnsupportedCopy(const char* call, const void* dst, cudaMemcpyKind kind);

}  // namespace labkit
