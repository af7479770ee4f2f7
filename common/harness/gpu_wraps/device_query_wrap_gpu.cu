// GPU backend: the harness is linked with `--wrap` on the runtime's three ways of reading how many
// threads a block may hold (kGpuLinkWraps in link_wraps.h): the device's properties, one device
// attribute, a kernel's attributes (which the runtime's cudaOccupancyMaxPotentialBlockSize*
// templates read too). Each calls the runtime and answers for the device a query is shown
// (presented_device.cuh): the GPU itself unless a PresentedBlockLimit is open.
#include <cuda_runtime.h>

#include "presented_device.cuh"

extern "C" cudaError_t __real_cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
extern "C" cudaError_t __wrap_cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  const cudaError_t result = __real_cudaGetDeviceProperties(prop, device);
  if (result == cudaSuccess) labkit::PresentDeviceProperties(*prop);
  return result;
}

extern "C" cudaError_t __real_cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
extern "C" cudaError_t __wrap_cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  const cudaError_t result = __real_cudaDeviceGetAttribute(value, attr, device);
  if (result == cudaSuccess) labkit::PresentDeviceAttribute(attr, *value);
  return result;
}

extern "C" cudaError_t __real_cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
extern "C" cudaError_t __wrap_cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  const cudaError_t result = __real_cudaFuncGetAttributes(attr, func);
  if (result == cudaSuccess) labkit::PresentFuncAttributes(*attr);
  return result;
}
