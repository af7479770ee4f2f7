// The host-side runtime API subset. Everything runs synchronously: streams and events exist so that
// lab code compiles and times itself, with events read from the host clock.
#pragma once
#include <cstddef>

#include "labkit_emu/runtime_types.h"

// Errors. Launch failures found while a kernel runs are sticky, as on a GPU: every later call
// returns them until cudaDeviceReset.
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

// Device.
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);

// Memory.
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
// Where a pointer lives: inside a device, managed or pinned allocation, or ordinary host memory.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = 0);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = 0);

template <class T>
static inline cudaError_t cudaMalloc(T** ptr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T** ptr, size_t size,
                                            unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
template <class T>
static inline cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags = 0) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}

// __constant__ and __device__ variables are ordinary globals on the CPU backend.
namespace emu::detail {
cudaError_t copy_to_symbol(void* symbol, size_t symbol_bytes, const void* src, size_t count,
                           size_t offset, cudaMemcpyKind kind);
cudaError_t copy_from_symbol(void* dst, const void* symbol, size_t symbol_bytes, size_t count,
                             size_t offset, cudaMemcpyKind kind);
// The `bytes` at `symbol`, a __device__ or __constant__ variable whose address cudaGetSymbolAddress
// gave: a copy through that address (valid CUDA) is one the CPU backend's record of a function
// cannot carry to its replay, and the copies' checks say so in those words.
void note_symbol_address(const void* symbol, size_t bytes);
}  // namespace emu::detail

template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return emu::detail::copy_to_symbol(const_cast<T*>(&symbol), sizeof(T), src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                                  size_t offset = 0,
                                                  cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t = 0) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count,
                                               size_t offset = 0,
                                               cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return emu::detail::copy_from_symbol(dst, &symbol, sizeof(T), count, offset, kind);
}
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
  if (dev_ptr == nullptr) return cudaErrorInvalidValue;
  *dev_ptr = const_cast<T*>(&symbol);
  emu::detail::note_symbol_address(&symbol, sizeof(T));
  return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaGetSymbolSize(size_t* size, const T&) {
  if (size == nullptr) return cudaErrorInvalidValue;
  *size = sizeof(T);
  return cudaSuccess;
}

// Streams and events.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// Kernel attributes and occupancy, answered for the modelled GPU from the resource report
// (LABKIT_EMU_KERNELS) of the kernel, found by its mangled name.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size, size_t dynamic_smem);

namespace emu {
// Kit code only (not on any student allow-list): the registers a kernel is compiled to on a GPU,
// for a kernel of the kit's own that no resource report lists and whose count is pinned with
// __maxnreg__ (lab 04's occupancy cases). cudaFuncGetAttributes and the occupancy API answer with
// it from then on.
void declare_registers(const void* kernel, int registers);
// Kit code only: the harness's case now running ("" between cases). Every diagnostic line then
// carries it as "case", so that labgrade attaches a diagnostic to its own case.
void set_diagnostic_case(const char* id);
}  // namespace emu

namespace emu::detail {
template <class F>
static inline const void* function_address(F* func) {
  return reinterpret_cast<const void*>(func);
}
// block size -> dynamic shared bytes, type-erased so that the calculator lives in the library.
using SmemOfBlock = size_t (*)(const void* functor, int block_size);
cudaError_t max_potential_block_size(int* min_grid_size, int* block_size, const void* func,
                                     SmemOfBlock smem_of_block, const void* functor,
                                     int block_size_limit);
}  // namespace emu::detail

template <class T>
static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* func) {
  return cudaFuncGetAttributes(attr, emu::detail::function_address(func));
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T* func, cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(emu::detail::function_address(func), attr, value);
}
template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache config) {
  return cudaFuncSetCacheConfig(emu::detail::function_address(func), config);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, T* func,
                                                                        int block_size,
                                                                        size_t dynamic_smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      num_blocks, emu::detail::function_address(func), block_size, dynamic_smem);
}
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int* min_grid_size, int* block_size, T func, UnaryFunction block_size_to_smem,
    int block_size_limit = 0) {
  // Called through a pointer to the caller's copy, not a const one: CUDA's own template calls its
  // by-value copy, so a functor whose operator() is not const (a `mutable` lambda) is valid CUDA.
  auto call = [](const void* f, int n) -> size_t {
    return static_cast<size_t>((*static_cast<UnaryFunction*>(const_cast<void*>(f)))(n));
  };
  return emu::detail::max_potential_block_size(min_grid_size, block_size,
                                               emu::detail::function_address(func), call,
                                               &block_size_to_smem, block_size_limit);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size,
                                                             T func, size_t dynamic_smem = 0,
                                                             int block_size_limit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(
      min_grid_size, block_size, func, [dynamic_smem](int) { return dynamic_smem; },
      block_size_limit);
}

// The runtime's flags forms. Their one flag besides the default,
// cudaOccupancyDisableCachingOverride, changes nothing on the modelled GPU (it concerns global
// loads cached in L1 before Volta's unified cache), so each checks the flags and gives the plain
// form's answer, through the plain form itself (which labgrade's link wraps see, as a GPU's see the
// flags form).
namespace emu::detail {
inline bool occupancy_flags_valid(unsigned int flags) {
  return (flags & ~static_cast<unsigned int>(cudaOccupancyDisableCachingOverride)) == 0;
}
}  // namespace emu::detail
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, const void* func, int block_size, size_t dynamic_smem, unsigned int flags) {
  if (!emu::detail::occupancy_flags_valid(flags)) return cudaErrorInvalidValue;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks, func, block_size, dynamic_smem);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, T* func, int block_size, size_t dynamic_smem, unsigned int flags) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      num_blocks, emu::detail::function_address(func), block_size, dynamic_smem, flags);
}
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* min_grid_size, int* block_size, T func, UnaryFunction block_size_to_smem,
    int block_size_limit = 0, unsigned int flags = cudaOccupancyDefault) {
  if (!emu::detail::occupancy_flags_valid(flags)) return cudaErrorInvalidValue;
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(min_grid_size, block_size, func,
                                                        block_size_to_smem, block_size_limit);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int* min_grid_size, int* block_size, T func, size_t dynamic_smem = 0, int block_size_limit = 0,
    unsigned int flags = cudaOccupancyDefault) {
  if (!emu::detail::occupancy_flags_valid(flags)) return cudaErrorInvalidValue;
  return cudaOccupancyMaxPotentialBlockSize(min_grid_size, block_size, func, dynamic_smem,
                                            block_size_limit);
}
