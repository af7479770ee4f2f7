#include <cuda_runtime.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include "device_names.h"
#include "student_device_code.h"

namespace labkit::replay {
namespace {

// A fatbinary is a few hundred kilobytes; this bounds what a request can make the program read.
constexpr std::size_t kMaxFatbinBytes = 64u << 20;

struct Loaded {
  bool any = false;
  // The bytes each library was loaded from, kept for the process's life: a library may read its
  // image again when a kernel is first used in a context.
  std::deque<std::vector<char>> images;
  std::vector<cudaLibrary_t> libraries;
  std::map<int64_t, cudaKernel_t> kernels;
  std::map<int64_t, DeviceVariable> variables;
};

Loaded& State() {
  static Loaded loaded;
  return loaded;
}

bool ReadBounded(const std::string& path, std::vector<char>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return bytes.size() <= kMaxFatbinBytes && !bytes.empty();
}

// Every kernel of `library` by its mangled name: enumerated, so that no lookup of a name the
// library lacks fails (compute-sanitizer reports a failed call of the program's).
std::map<std::string, cudaKernel_t> KernelsOf(cudaLibrary_t library) {
  std::map<std::string, cudaKernel_t> by_name;
  unsigned count = 0;
  if (cudaLibraryGetKernelCount(&count, library) != cudaSuccess) return by_name;
  std::vector<cudaKernel_t> kernels(count);
  if (count == 0 || cudaLibraryEnumerateKernels(kernels.data(), count, library) != cudaSuccess)
    return by_name;
  for (cudaKernel_t k : kernels) {
    const char* name = nullptr;
    if (cudaFuncGetName(&name, reinterpret_cast<const void*>(k)) == cudaSuccess && name != nullptr)
      by_name.emplace(name, k);
  }
  return by_name;
}

// The variable `name` in the first of `libraries` that has it.
std::optional<DeviceVariable> GlobalNamed(const std::vector<cudaLibrary_t>& libraries,
                                          const std::string& name) {
  for (cudaLibrary_t library : libraries) {
    void* address = nullptr;
    std::size_t bytes = 0;
    if (cudaLibraryGetGlobal(&address, &bytes, library, name.c_str()) == cudaSuccess)
      return DeviceVariable{static_cast<char*>(address), bytes, false};
    (void)cudaGetLastError();
  }
  return std::nullopt;
}

}  // namespace

std::string LoadStudentDeviceCode(const StudentImage& image, const std::string& dir) {
  if (image.fatbins.empty()) return "";
  Loaded& state = State();
  std::map<std::string, cudaKernel_t> kernels;
  for (const std::string& name : image.fatbins) {
    if (name.empty() || name.find('/') != std::string::npos)
      return "a fatbinary must lie beside the request";
    std::vector<char>& bytes = state.images.emplace_back();
    if (!ReadBounded(dir + name, bytes)) return "cannot read the device code " + name;
    cudaLibrary_t library = nullptr;
    const cudaError_t e =
        cudaLibraryLoadData(&library, bytes.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return "cannot load the device code " + name + " (" + cudaGetErrorName(e) + ")";
    }
    state.libraries.push_back(library);
    kernels.merge(KernelsOf(library));
  }
  std::vector<std::string> kernel_names;
  for (const auto& [name, kernel] : kernels) kernel_names.push_back(name);
  for (const auto& [offset, host_name] : image.kernel_names)
    for (const std::string& name : DeviceNameCandidates(host_name, kernel_names))
      if (const auto it = kernels.find(name); it != kernels.end()) {
        state.kernels[offset] = it->second;
        break;
      }
  // A name the libraries lack is a host variable of the student's, not a device one.
  for (const auto& [offset, host_name] : image.variable_names)
    for (const std::string& name : DeviceNameCandidates(host_name, image.device_variable_names))
      if (std::optional<DeviceVariable> found = GlobalNamed(state.libraries, name)) {
        // Where labgrade could not read every cubin's symbols, any variable may be __constant__.
        found->constant = !image.constants_complete ||
                          std::find(image.constant_names.begin(), image.constant_names.end(),
                                    name) != image.constant_names.end();
        state.variables[offset] = *found;
        break;
      }
  state.any = true;
  return "";
}

bool StudentDeviceCodeLoaded() { return State().any; }

void UnloadStudentDeviceCode() {
  Loaded& state = State();
  for (cudaLibrary_t library : state.libraries) (void)cudaLibraryUnload(library);
  state = Loaded{};
}

const void* StudentKernel(int64_t offset) {
  const auto& kernels = State().kernels;
  const auto it = kernels.find(offset);
  return it == kernels.end() ? nullptr : reinterpret_cast<const void*>(it->second);
}

std::optional<DeviceVariable> StudentVariable(int64_t offset) {
  const auto& variables = State().variables;
  const auto it = variables.find(offset);
  if (it == variables.end()) return std::nullopt;
  return it->second;
}

}  // namespace labkit::replay
