#include "errors.h"

#include <atomic>

namespace emu::detail {
namespace {
// Process-wide rather than per host thread: the kit's harnesses drive the device from one thread.
std::atomic<int> last_error{cudaSuccess};
std::atomic<int> sticky{cudaSuccess};

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* find(cudaError_t code) {
  for (const ErrorText& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}
}  // namespace

cudaError_t record(cudaError_t result) {
  if (result != cudaSuccess) last_error.store(result);
  return result;
}

void make_sticky(cudaError_t error) {
  sticky.store(error);
  last_error.store(error);
}

cudaError_t sticky_error() { return static_cast<cudaError_t>(sticky.load()); }

void clear_errors() {
  sticky.store(cudaSuccess);
  last_error.store(cudaSuccess);
}
}  // namespace emu::detail

using namespace emu::detail;

cudaError_t cudaGetLastError() {
  cudaError_t s = sticky_error();
  if (s != cudaSuccess) return s;
  return static_cast<cudaError_t>(last_error.exchange(cudaSuccess));
}

cudaError_t cudaPeekAtLastError() {
  cudaError_t s = sticky_error();
  return s != cudaSuccess ? s : static_cast<cudaError_t>(last_error.load());
}

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* e = find(error);
  return e ? e->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* e = find(error);
  return e ? e->text : "unrecognized error code";
}
