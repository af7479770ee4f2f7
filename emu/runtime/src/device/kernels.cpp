#include "kernels.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "config.h"
#include "device_model.h"
#include "errors.h"
#include "labkit_emu/runtime_api.h"

namespace emu::detail {
namespace {
std::mutex kernels_mutex;

struct Resources {
  int registers;
  size_t static_smem, local_bytes, const_bytes;
  int max_threads;
};

// The resource report: {"kernels": {"<mangled>": {"registers": 32, "static_shared_bytes": 2048,
// "local_bytes": 0, "max_threads": 1024}}} (docs/DESIGN.md).
std::map<std::string, Resources> load_report() {
  std::map<std::string, Resources> out;
  const std::string& path = config().kernels_path;
  if (path.empty()) return out;
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.contains("kernels") || !doc["kernels"].is_object()) {
    std::fprintf(stderr, "labkit-emu: cannot read the resource report %s; using defaults\n",
                 path.c_str());
    return out;
  }
  for (const auto& [name, k] : doc["kernels"].items()) {
    out[name] = Resources{k.value("registers", 32), k.value("static_shared_bytes", size_t{0}),
                          k.value("local_bytes", size_t{0}), k.value("const_bytes", size_t{0}),
                          k.value("max_threads", 1024)};
  }
  return out;
}

const std::map<std::string, Resources>& report() {
  static const auto r = load_report();
  return r;
}

std::string symbol_name(const void* kernel) {
  Dl_info info;
  if (dladdr(kernel, &info) != 0 && info.dli_sname != nullptr && info.dli_saddr == kernel) {
    return info.dli_sname;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "%p", kernel);
  return hex;
}

void apply_defaults(KernelInfo& k) {
  const cudaDeviceProp& dev = device_properties();
  k.max_dynamic_smem = static_cast<int>(dev.sharedMemPerBlock - k.static_smem);
  k.carveout = -1;
}

std::map<const void*, KernelInfo>& kernels() {
  static auto* m = new std::map<const void*, KernelInfo>();
  return *m;
}
}  // namespace

KernelInfo& kernel_info(const void* kernel) {
  std::lock_guard<std::mutex> lock(kernels_mutex);
  auto [it, inserted] = kernels().try_emplace(kernel);
  KernelInfo& k = it->second;
  if (inserted) {
    k.name = symbol_name(kernel);
    if (auto r = report().find(k.name); r != report().end()) {
      k.in_report = true;
      k.registers = r->second.registers;
      k.static_smem = r->second.static_smem;
      k.local_bytes = r->second.local_bytes;
      k.const_bytes = r->second.const_bytes;
      k.max_threads = r->second.max_threads;
    }
    apply_defaults(k);
  }
  return k;
}

void reset_kernel_attributes() {
  std::lock_guard<std::mutex> lock(kernels_mutex);
  for (auto& [ptr, k] : kernels()) apply_defaults(k);
}

cudaFuncAttributes function_attributes(const KernelInfo& k) {
  cudaFuncAttributes a;
  std::memset(&a, 0, sizeof a);
  const cudaDeviceProp& dev = device_properties();
  a.sharedSizeBytes = k.static_smem;
  a.constSizeBytes = k.const_bytes;
  a.localSizeBytes = k.local_bytes;
  a.maxThreadsPerBlock = k.max_threads;
  a.numRegs = k.registers;
  a.ptxVersion = dev.major * 10 + dev.minor;
  a.binaryVersion = a.ptxVersion;
  a.maxDynamicSharedSizeBytes = k.max_dynamic_smem;
  a.preferredShmemCarveout = k.carveout;
  return a;
}
}  // namespace emu::detail

void emu::declare_registers(const void* kernel, int registers) {
  detail::KernelInfo& k = detail::kernel_info(kernel);
  std::lock_guard<std::mutex> lock(detail::kernels_mutex);
  k.registers = registers;
}

using namespace emu::detail;

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr || func == nullptr) return record(cudaErrorInvalidDeviceFunction);
  *attr = function_attributes(kernel_info(func));
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  if (func == nullptr) return record(cudaErrorInvalidDeviceFunction);
  KernelInfo& k = kernel_info(func);
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
      const size_t limit = device_properties().sharedMemPerBlockOptin - k.static_smem;
      if (value < 0 || static_cast<size_t>(value) > limit) return record(cudaErrorInvalidValue);
      k.max_dynamic_smem = value;
      return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return record(cudaErrorInvalidValue);
      k.carveout = value;
      return cudaSuccess;
  }
  return record(cudaErrorInvalidValue);
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache) {
  return func == nullptr ? record(cudaErrorInvalidDeviceFunction) : cudaSuccess;
}
