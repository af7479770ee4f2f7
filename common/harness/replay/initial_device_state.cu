#include "initial_device_state.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "labkit/cuda_check.cuh"
#include "replay_recorder.h"
#ifdef __LABKIT_EMU__
#include "labkit_emu/access_counts.h"
#else
#include "student_device_code.h"
#endif

namespace labkit::replay {
namespace {

using AttributeKey = std::pair<const void*, int>;

// Each (kernel, attribute) a plan changed, with its value before the first change.
std::map<AttributeKey, int>& OriginalAttributes() {
  static std::map<AttributeKey, int> originals;
  return originals;
}

// The attribute's current value, where cudaFuncGetAttributes reports it.
std::optional<int> CurrentAttribute(const void* kernel, int attribute) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  switch (static_cast<cudaFuncAttribute>(attribute)) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      return a.maxDynamicSharedSizeBytes;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      return a.preferredShmemCarveout;
#ifndef __LABKIT_EMU__  // the CPU backend accepts only the two above
    case cudaFuncAttributeRequiredClusterWidth:
      return a.requiredClusterWidth;
    case cudaFuncAttributeRequiredClusterHeight:
      return a.requiredClusterHeight;
    case cudaFuncAttributeRequiredClusterDepth:
      return a.requiredClusterDepth;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
      return a.nonPortableClusterSizeAllowed;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return a.clusterSchedulingPolicyPreference;
#endif
    default:
      return std::nullopt;
  }
}

std::set<const void*>& RegisteredVariables() {
  static std::set<const void*> registered;
  return registered;
}

// GPU backend: the student's __constant__ variables, by the address the program registered each
// under.
std::set<const void*>& ConstantVariables() {
  static std::set<const void*> constants;
  return constants;
}

bool IsDeviceVariable(const void* symbol) {
#ifdef __LABKIT_EMU__
  (void)symbol;
  return true;
#else
  return RegisteredVariables().count(symbol) > 0;
#endif
}

bool ReadVariable(const void* symbol, std::vector<unsigned char>& bytes) {
#ifdef __LABKIT_EMU__
  const cudaError_t e = emu::detail::copy_from_symbol(bytes.data(), symbol, bytes.size(),
                                                      bytes.size(), 0, cudaMemcpyDeviceToHost);
#else
  const cudaError_t e = cudaMemcpyFromSymbol(bytes.data(), symbol, bytes.size());
#endif
  if (e == cudaSuccess) return true;
  (void)cudaGetLastError();  // not a device symbol: nothing sticky
  return false;
}

void WriteVariable(const void* symbol, const std::vector<unsigned char>& bytes) {
#ifdef __LABKIT_EMU__
  LABKIT_CUDA_CHECK(emu::detail::copy_to_symbol(const_cast<void*>(symbol), bytes.size(),
                                                bytes.data(), bytes.size(), 0,
                                                cudaMemcpyHostToDevice));
#else
  LABKIT_CUDA_CHECK(cudaMemcpyToSymbol(symbol, bytes.data(), bytes.size()));
#endif
}

}  // namespace

InitialDeviceState::InitialDeviceState(const StudentImage& image) {
#ifndef __LABKIT_EMU__
  // The kit's replay program: the variables are the loaded device code's, by device address.
  if (StudentDeviceCodeLoaded()) {
    for (const ImageRange& range : image.variables) {
      const std::optional<DeviceVariable> loaded = StudentVariable(range.offset);
      if (!loaded || loaded->bytes == 0) continue;
      Variable v{nullptr, std::vector<unsigned char>(loaded->bytes), loaded->address};
      LABKIT_CUDA_CHECK(
          cudaMemcpy(v.bytes.data(), v.device, v.bytes.size(), cudaMemcpyDeviceToHost));
      variables_.push_back(std::move(v));
    }
    return;
  }
#endif
  for (const ImageRange& range : image.variables) {
    const void* symbol = ImageAddress(range.offset);
    if (symbol == nullptr || range.size <= 0 || !IsDeviceVariable(symbol)) continue;
    Variable v{symbol, std::vector<unsigned char>(static_cast<std::size_t>(range.size))};
    if (ReadVariable(symbol, v.bytes)) variables_.push_back(std::move(v));
  }
}

void InitialDeviceState::Restore() const {
  for (const Variable& v : variables_) {
    if (v.device != nullptr)
      LABKIT_CUDA_CHECK(
          cudaMemcpy(v.device, v.bytes.data(), v.bytes.size(), cudaMemcpyHostToDevice));
    else
      WriteVariable(v.symbol, v.bytes);
  }
  for (const auto& [key, value] : OriginalAttributes())
    LABKIT_CUDA_CHECK(
        cudaFuncSetAttribute(key.first, static_cast<cudaFuncAttribute>(key.second), value));
}

void CountVariablesAsGlobalMemory(const StudentImage& image) {
#ifdef __LABKIT_EMU__
  // __constant__ variables: left out, as a GPU's counters leave constant loads out.
  for (const ImageRange& range : image.constants)
    if (const void* constant = ImageAddress(range.offset); constant != nullptr)
      emu::detail::count_as_constant_memory(constant, static_cast<std::size_t>(range.size));
  // The student's writable data, watched during counted launches (every access seen, even one
  // the compiler left uninstrumented).
  for (const ImageRange& range : image.watched_data)
    if (const void* data = ImageAddress(range.offset); data != nullptr)
      emu::detail::watch_during_counted_launches(const_cast<void*>(data),
                                                 static_cast<std::size_t>(range.size));
  // Whole sections where labgrade read them off the link's map: the variables lie inside them.
  if (!image.global_data.empty()) {
    for (const ImageRange& range : image.global_data)
      if (const void* data = ImageAddress(range.offset); data != nullptr)
        emu::detail::count_as_global_memory(data, static_cast<std::size_t>(range.size));
    return;
  }
  auto constant = [&](const ImageRange& v) {
    return std::any_of(image.constants.begin(), image.constants.end(), [&](const ImageRange& c) {
      return c.offset == v.offset && c.size == v.size;
    });
  };
  for (const ImageRange& range : image.variables)
    if (const void* variable = ImageAddress(range.offset); variable != nullptr && !constant(range))
      emu::detail::count_as_global_memory(variable, static_cast<std::size_t>(range.size));
#else
  (void)image;  // a GPU's counters see device memory wherever it lies
#endif
}

void NoteRegisteredVariable(const void* host_shadow, bool constant) {
  RegisteredVariables().insert(host_shadow);
  if (constant) ConstantVariables().insert(host_shadow);
}

bool IsConstantVariable(const void* symbol) {
#ifdef __LABKIT_EMU__
  return emu::detail::counts_as_constant_memory(symbol);
#else
  return ConstantVariables().count(symbol) > 0;
#endif
}

void KeepAttributeBeforeChange(const void* kernel, int attribute) {
  const AttributeKey key{kernel, attribute};
  if (OriginalAttributes().count(key) > 0) return;
  if (const std::optional<int> now = CurrentAttribute(kernel, attribute))
    OriginalAttributes().emplace(key, *now);
}

void ForgetKeptAttributes() { OriginalAttributes().clear(); }

}  // namespace labkit::replay
