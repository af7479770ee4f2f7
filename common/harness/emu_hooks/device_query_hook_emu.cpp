// CPU backend: the harness is linked with `--wrap` on emu's three ways of reading how many threads
// a block may hold (kEmuLinkWraps in link_wraps.h), as the GPU's are (device_query_wrap_gpu.cu):
// each calls emu's own function and answers for the device a query is shown
// (presented_device.cuh). emu's functions have C++ names; each wrapper takes the wrapped name
// through an asm label built from the same macro as the link line.
#include "labkit_emu/runtime_api.h"
#include "link_wraps.h"
#include "presented_device.cuh"

extern "C" cudaError_t labkit_real_get_device_properties(cudaDeviceProp* prop, int device) __asm__(
    "__real_" LABKIT_EMU_GET_DEVICE_PROPERTIES);
extern "C" cudaError_t labkit_wrap_get_device_properties(cudaDeviceProp* prop, int device) __asm__(
    "__wrap_" LABKIT_EMU_GET_DEVICE_PROPERTIES);
extern "C" cudaError_t labkit_wrap_get_device_properties(cudaDeviceProp* prop, int device) {
  const cudaError_t result = labkit_real_get_device_properties(prop, device);
  if (result == cudaSuccess) labkit::PresentDeviceProperties(*prop);
  return result;
}

extern "C" cudaError_t labkit_real_device_get_attribute(
    int* value, cudaDeviceAttr attr, int device) __asm__("__real_" LABKIT_EMU_DEVICE_GET_ATTRIBUTE);
extern "C" cudaError_t labkit_wrap_device_get_attribute(
    int* value, cudaDeviceAttr attr, int device) __asm__("__wrap_" LABKIT_EMU_DEVICE_GET_ATTRIBUTE);
extern "C" cudaError_t labkit_wrap_device_get_attribute(int* value, cudaDeviceAttr attr,
                                                        int device) {
  const cudaError_t result = labkit_real_device_get_attribute(value, attr, device);
  if (result == cudaSuccess) labkit::PresentDeviceAttribute(attr, *value);
  return result;
}

extern "C" cudaError_t labkit_real_func_get_attributes(
    cudaFuncAttributes* attr, const void* func) __asm__("__real_" LABKIT_EMU_FUNC_GET_ATTRIBUTES);
extern "C" cudaError_t labkit_wrap_func_get_attributes(
    cudaFuncAttributes* attr, const void* func) __asm__("__wrap_" LABKIT_EMU_FUNC_GET_ATTRIBUTES);
extern "C" cudaError_t labkit_wrap_func_get_attributes(cudaFuncAttributes* attr, const void* func) {
  const cudaError_t result = labkit_real_func_get_attributes(attr, func);
  if (result == cudaSuccess) labkit::PresentFuncAttributes(*attr);
  return result;
}
