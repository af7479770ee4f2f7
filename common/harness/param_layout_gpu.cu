#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "param_layout_gpu.cuh"

namespace labkit {
namespace {

using GetParamInfo = CUresult (*)(CUfunction, size_t, size_t*, size_t*);

GetParamInfo DriverGetParamInfo() {
  static GetParamInfo fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuFuncGetParamInfo", &p, 12040, cudaEnableDefault,
                                         &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<GetParamInfo>(p);
  }();
  return fn;
}

}  // namespace

bool ParamLayout(const void* kernel_stub, std::vector<ParamSlot>& slots) {
  static std::mutex mutex;
  static std::map<const void*, std::vector<ParamSlot>> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(kernel_stub); it != known.end()) {
    slots = it->second;
    return true;
  }
  slots.clear();
  const GetParamInfo get = DriverGetParamInfo();
  if (get == nullptr) return false;
  const cudaError_t waiting = cudaPeekAtLastError();
  cudaFunction_t function = nullptr;
  if (cudaGetFuncBySymbol(&function, kernel_stub) != cudaSuccess) {
    if (waiting == cudaSuccess) cudaGetLastError();  // the query's failure is not the student's
    return false;
  }
  // The first index the driver refuses is the parameter count.
  for (size_t i = 0;; ++i) {
    ParamSlot slot;
    if (get(reinterpret_cast<CUfunction>(function), i, &slot.offset, &slot.size) != CUDA_SUCCESS)
      break;
    slots.push_back(slot);
  }
  known[kernel_stub] = slots;
  return true;
}

bool PackArguments(const void* kernel_stub, void** args, std::vector<unsigned char>& bytes,
                   std::vector<unsigned>& offsets) {
  std::vector<ParamSlot> slots;
  if (!ParamLayout(kernel_stub, slots)) return false;
  std::size_t total = 0;
  for (const ParamSlot& s : slots) total = std::max(total, s.offset + s.size);
  bytes.assign(total, 0);
  offsets.clear();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (args == nullptr || args[i] == nullptr) return false;
    std::memcpy(bytes.data() + slots[i].offset, args[i], slots[i].size);
    offsets.push_back(static_cast<unsigned>(slots[i].offset));
  }
  return true;
}

}  // namespace labkit
