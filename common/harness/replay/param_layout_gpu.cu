#include <cuda_runtime.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "param_layout_gpu.cuh"

namespace labkit {
namespace {

// The number of parameters from the kernel's C++ name ("k<16>(float const*, float*, int)": 3), so
// that the runtime is never asked about a parameter past the last: compute-sanitizer reports that
// refusal as an error of the program. -1 for a name without a parameter list (extern "C").
int ParameterCount(const void* kernel_stub) {
  const char* mangled = nullptr;
  const cudaError_t waiting = cudaPeekAtLastError();
  if (cudaFuncGetName(&mangled, kernel_stub) != cudaSuccess || mangled == nullptr) {
    if (waiting == cudaSuccess) cudaGetLastError();
    return -1;
  }
  int status = 0;
  char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return -1;
  const std::string name = text;
  std::free(text);
  // The parameter list is the last parenthesised group at depth 0.
  int depth = 0, count = -1, commas = 0;
  bool empty = true;
  for (char c : name) {
    if (c == '(' || c == '<' || c == '[') {
      if (depth == 0 && c == '(') commas = 0, empty = true;
      ++depth;
      continue;
    }
    if (c == ')' || c == '>' || c == ']') {
      if (--depth == 0 && c == ')') count = empty ? 0 : commas + 1;
      continue;
    }
    if (depth == 1 && c == ',') ++commas;
    if (depth == 1 && c != ' ') empty = false;
  }
  return name.find("(void)") != std::string::npos && count == 1 ? 0 : count;
}

}  // namespace

namespace {

// What ParamLayout learnt, by kernel.
struct KnownLayouts {
  std::mutex mutex;
  std::map<const void*, std::vector<ParamSlot>> by_kernel;
};

KnownLayouts& Known() {
  static KnownLayouts known;
  return known;
}

}  // namespace

bool ParamLayout(const void* kernel_stub, std::vector<ParamSlot>& slots) {
  KnownLayouts& layouts = Known();
  std::lock_guard<std::mutex> lock(layouts.mutex);
  auto& known = layouts.by_kernel;
  if (const auto it = known.find(kernel_stub); it != known.end()) {
    slots = it->second;
    return true;
  }
  slots.clear();
  // The count from the name; else the first index the runtime refuses is the count. The runtime's
  // own query takes a host stub and a library's kernel handle alike (the kit's replay program
  // launches the latter: student_device_code.h).
  const int count = ParameterCount(kernel_stub);
  for (size_t i = 0; count < 0 || i < static_cast<size_t>(count); ++i) {
    ParamSlot slot;
    const cudaError_t waiting = cudaPeekAtLastError();
    if (cudaFuncGetParamInfo(kernel_stub, i, &slot.offset, &slot.size) != cudaSuccess) {
      if (waiting == cudaSuccess) cudaGetLastError();  // the query's failure is not the student's
      if (i == 0 && count > 0) return false;
      break;
    }
    slots.push_back(slot);
  }
  known[kernel_stub] = slots;
  return true;
}

void ForgetParamLayouts() {
  KnownLayouts& layouts = Known();
  std::lock_guard<std::mutex> lock(layouts.mutex);
  layouts.by_kernel.clear();
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
