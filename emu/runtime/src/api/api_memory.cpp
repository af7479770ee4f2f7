// Allocation, copies and memset. Copies check what CUDA with unified addressing would reject or
// corrupt silently: a direction that contradicts where the pointers live (bad_copy) and a device
// range that runs past its allocation.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "device_model.h"
#include "diagnostics.h"
#include "errors.h"
#include "labkit_emu/runtime_api.h"
#include "memory.h"
#include "runtime.h"

using namespace emu::detail;

namespace {

cudaError_t allocate_into(void** ptr, size_t size, MemoryKind kind) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (ptr == nullptr) return record(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;  // as CUDA: success and a null pointer
  if (kind != MemoryKind::pinned_host &&
      bytes_in_use() + size > device_properties().totalGlobalMem) {
    return record(cudaErrorMemoryAllocation);
  }
  *ptr = allocate(size, kind);
  return *ptr != nullptr ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

// Valid CUDA the CPU backend does not carry out: reported as such, not as the student's mistake.
cudaError_t unsupported_copy(const char* call, const std::string& detail) {
  JsonLine line("unsupported_copy");
  line.str("call", call).str("detail", detail.c_str());
  emit(line, (std::string(call) + ": " + detail).c_str());
  return record(cudaErrorNotSupported);
}

cudaError_t bad_copy(const char* call, const std::string& detail) {
  JsonLine line("bad_copy");
  line.str("call", call).str("detail", detail.c_str());
  emit(line, (std::string(call) + ": " + detail).c_str());
  return record(cudaErrorInvalidValue);
}

// Where a span of `bytes` bytes at `ptr` lives.
struct Span {
  bool device = false;    // inside a cudaMalloc/Pitch buffer (or managed memory)
  bool managed = false;   // accessible from both sides
  bool overruns = false;  // starts inside a device buffer but runs past its end
  bool symbol = false;    // inside a variable whose address cudaGetSymbolAddress gave
  size_t buffer_bytes = 0;
  size_t offset = 0;
};

// The variables whose addresses cudaGetSymbolAddress gave: start -> bytes.
std::mutex symbols_mutex;
std::map<uintptr_t, size_t> symbol_addresses;

// `ptr` inside a variable of symbol_addresses: its span there.
bool locate_symbol(const void* ptr, size_t bytes, Span& s) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(symbols_mutex);
  auto it = symbol_addresses.upper_bound(p);
  if (it == symbol_addresses.begin()) return false;
  --it;
  if (p >= it->first + it->second) return false;
  s.symbol = true;
  s.buffer_bytes = it->second;
  s.offset = p - it->first;
  return true;
}

Span locate(const void* ptr, size_t bytes) {
  Span s;
  auto a = find_allocation(ptr, 0);
  if (!a || !a->device_side()) {
    locate_symbol(ptr, bytes, s);
    return s;
  }
  s.device = true;
  s.managed = a->kind == MemoryKind::managed;
  s.buffer_bytes = a->bytes;
  s.offset = static_cast<size_t>(static_cast<const char*>(ptr) - a->user);
  s.overruns = bytes > a->bytes - s.offset;
  return s;
}

const char* kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice:
      return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost:
      return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice:
      return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault:
      return "cudaMemcpyDefault";
  }
  return "an unknown cudaMemcpyKind";
}

std::string overrun_text(const char* role, const Span& s, size_t bytes) {
  return std::string("the ") + role + " range of " + std::to_string(bytes) +
         " bytes starts at offset " + std::to_string(s.offset) + " of a " +
         std::to_string(s.buffer_bytes) + "-byte buffer and runs past its end";
}

// Checks one side of a copy: `want_device` is what the kind says this side is.
cudaError_t check_side(const char* call, cudaMemcpyKind kind, const char* role, const Span& s,
                       bool want_device, size_t extent) {
  if (s.overruns) return bad_copy(call, overrun_text(role, s, extent));
  // Valid CUDA, but a copy the grader's record of the function cannot carry to its replay (which
  // places variables elsewhere): said as what it is, not as a wrong direction.
  if (s.symbol)
    return unsupported_copy(
        call, std::string("the ") + role +
                  " is a __device__ or __constant__ variable's address from "
                  "cudaGetSymbolAddress, which the grader's CPU backend does not copy "
                  "through: use cudaMemcpyToSymbol / cudaMemcpyFromSymbol");
  if (s.managed || kind == cudaMemcpyDefault) return cudaSuccess;
  if (want_device && !s.device) {
    return bad_copy(call,
                    std::string(kind_name(kind)) + " but the " + role + " is not device memory");
  }
  if (!want_device && s.device) {
    return bad_copy(call, std::string(kind_name(kind)) + " but the " + role + " is device memory");
  }
  return cudaSuccess;
}

// dst/src extents are the bytes each side spans (for 2-D copies: (height-1)*pitch + width).
cudaError_t check_copy(const char* call, void* dst, size_t dst_extent, const void* src,
                       size_t src_extent, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    return record(cudaErrorInvalidMemcpyDirection);
  }
  if (dst == nullptr || src == nullptr) return record(cudaErrorInvalidValue);
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (auto e =
          check_side(call, kind, "destination", locate(dst, dst_extent), dst_device, dst_extent);
      e != cudaSuccess) {
    return e;
  }
  return check_side(call, kind, "source", locate(src, src_extent), src_device, src_extent);
}
}  // namespace

cudaError_t cudaMalloc(void** ptr, size_t size) {
  return allocate_into(ptr, size, MemoryKind::device);
}

cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int) {
  return allocate_into(ptr, size, MemoryKind::managed);
}

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return record(cudaErrorInvalidValue);
  // Rows start on 512-byte boundaries, as on current GPUs.
  *pitch = (width + 511) / 512 * 512;
  return allocate_into(ptr, *pitch * height, MemoryKind::device);
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return allocate_into(ptr, size, MemoryKind::pinned_host);
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) {
  return allocate_into(ptr, size, MemoryKind::pinned_host);
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int) {
  if (device_ptr == nullptr || host_ptr == nullptr) return record(cudaErrorInvalidValue);
  *device_ptr = host_ptr;  // one address space
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (attributes == nullptr) return record(cudaErrorInvalidValue);
  *attributes = {cudaMemoryTypeUnregistered, 0, nullptr, const_cast<void*>(ptr)};
  const auto a = find_allocation(ptr, 0);
  if (!a) return cudaSuccess;
  switch (a->kind) {
    case MemoryKind::device:
      *attributes = {cudaMemoryTypeDevice, 0, const_cast<void*>(ptr), nullptr};
      break;
    case MemoryKind::managed:
      *attributes = {cudaMemoryTypeManaged, 0, const_cast<void*>(ptr), const_cast<void*>(ptr)};
      break;
    case MemoryKind::pinned_host:  // mapped: one address space, so both pointers are the same
      *attributes = {cudaMemoryTypeHost, 0, const_cast<void*>(ptr), const_cast<void*>(ptr)};
      break;
  }
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (ptr == nullptr) return cudaSuccess;
  return release(ptr, false) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaFreeHost(void* ptr) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (ptr == nullptr) return cudaSuccess;
  return release(ptr, true) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (count == 0) return cudaSuccess;
  if (auto e = check_copy("cudaMemcpy", dst, count, src, count, kind); e != cudaSuccess) return e;
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
  if (width == 0 || height == 0) return cudaSuccess;
  const size_t dst_extent = (height - 1) * dpitch + width;
  const size_t src_extent = (height - 1) * spitch + width;
  if (auto e = check_copy("cudaMemcpy2D", dst, dst_extent, src, src_extent, kind);
      e != cudaSuccess) {
    return e;
  }
  for (size_t row = 0; row < height; ++row) {
    std::memmove(static_cast<char*>(dst) + row * dpitch,
                 static_cast<const char*>(src) + row * spitch, width);
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (count == 0) return cudaSuccess;
  const Span s = locate(ptr, count);
  if (!s.device) return bad_copy("cudaMemset", "the destination is not device memory");
  if (s.overruns) return bad_copy("cudaMemset", overrun_text("destination", s, count));
  std::memset(ptr, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t) {
  return cudaMemset(ptr, value, count);
}

namespace emu::detail {
namespace {
// The checks both symbol copies make; `to_symbol` tells which side the symbol is on.
cudaError_t check_symbol_copy(size_t symbol_bytes, size_t count, size_t offset, cudaMemcpyKind kind,
                              bool to_symbol, const void* other) {
  if (auto e = enter(); e != cudaSuccess) return e;
  if (offset > symbol_bytes || count > symbol_bytes - offset) return record(cudaErrorInvalidValue);
  const cudaMemcpyKind wrong = to_symbol ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  if (kind == wrong || kind == cudaMemcpyHostToHost) return record(cudaErrorInvalidMemcpyDirection);
  if (count > 0 && other == nullptr) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}
}  // namespace

void note_symbol_address(const void* symbol, size_t bytes) {
  if (symbol == nullptr || bytes == 0) return;
  std::lock_guard<std::mutex> lock(symbols_mutex);
  size_t& known = symbol_addresses[reinterpret_cast<uintptr_t>(symbol)];
  known = std::max(known, bytes);
}

cudaError_t copy_to_symbol(void* symbol, size_t symbol_bytes, const void* src, size_t count,
                           size_t offset, cudaMemcpyKind kind) {
  cudaError_t e = check_symbol_copy(symbol_bytes, count, offset, kind, true, src);
  if (e == cudaSuccess && count > 0) std::memmove(static_cast<char*>(symbol) + offset, src, count);
  return e;
}

cudaError_t copy_from_symbol(void* dst, const void* symbol, size_t symbol_bytes, size_t count,
                             size_t offset, cudaMemcpyKind kind) {
  cudaError_t e = check_symbol_copy(symbol_bytes, count, offset, kind, false, dst);
  if (e == cudaSuccess && count > 0) {
    std::memmove(dst, static_cast<const char*>(symbol) + offset, count);
  }
  return e;
}
}  // namespace emu::detail
