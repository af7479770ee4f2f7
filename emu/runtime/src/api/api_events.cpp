// Streams and events. Every operation is synchronous on the CPU backend, so a stream is only a
// handle and an event is a host timestamp taken when it is recorded.
#include <chrono>

#include "errors.h"
#include "labkit_emu/runtime_api.h"
#include "runtime.h"

struct CUstream_st {
  unsigned int flags;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point when;
  bool recorded = false;
  bool timing = true;
};

using namespace emu::detail;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (stream == nullptr) return record(cudaErrorInvalidValue);
  *stream = new CUstream_st{flags};
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr) return record(cudaErrorInvalidResourceHandle);
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return enter(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return enter(); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (event == nullptr) return record(cudaErrorInvalidValue);
  *event = new CUevent_st;
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (event == nullptr) return record(cudaErrorInvalidResourceHandle);
  event->when = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (auto e = enter(); e != cudaSuccess) return e;
  return event == nullptr ? record(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (auto e = enter(); e != cudaSuccess) return e;
  return event == nullptr ? record(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (ms == nullptr) return record(cudaErrorInvalidValue);
  if (start == nullptr || end == nullptr) return record(cudaErrorInvalidResourceHandle);
  // As on a GPU: an event never recorded, or created without timing, cannot be measured.
  if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
  if (!start->timing || !end->timing) return record(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr) return record(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
