// GPU backend: every triple-chevron launch ends in CUDA's __cudaLaunchKernel (or its _ptsz twin),
// with a kernel handle from __cudaGetKernel; a launch through the API itself is a call of
// cudaLaunchKernel. The harness is linked with `--wrap` on all of them (SubmissionBuilder's link
// line), so these wrappers see each launch, note it in the launch log and, in a record run, in the
// case's plan (replay_recorder.h), and hand it on unchanged.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <map>
#include <mutex>

#include "launch_counters.h"
#include "launch_log.h"
#include "param_layout_gpu.cuh"
#include "presented_device.cuh"
#include "replay_recorder.h"

extern "C" {
cudaError_t __real___cudaGetKernel(cudaKernel_t* kernel, const void* function);
cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                      size_t shared, cudaStream_t stream);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                           size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                                    size_t shared, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernel_ptsz(const void* function, dim3 grid, dim3 block, void** args,
                                         size_t shared, cudaStream_t stream);
}

namespace {

std::mutex g_mutex;
std::map<cudaKernel_t, const void*> g_functions;  // kernel handle -> host stub
// Inside a wrapped launch: the runtime's own nested entry is not a second launch.
thread_local int t_launch_depth = 0;

std::string NameOf(const void* function) {
  const char* name = nullptr;
  if (cudaFuncGetName(&name, function) == cudaSuccess && name != nullptr) return name;
  cudaGetLastError();
  Dl_info info{};
  if (dladdr(function, &info) != 0 && info.dli_sname != nullptr) return info.dli_sname;
  return "?";
}

const void* FunctionOf(cudaKernel_t kernel) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto found = g_functions.find(kernel);
  return found == g_functions.end() ? nullptr : found->second;
}

// Notes one launch of `function` (its host stub) in the launch log and the plan; returns the note.
labkit::LaunchRecord NoteLaunch(const void* function, dim3 grid, dim3 block, void** args,
                                size_t shared) {
  labkit::LaunchRecord record;
  record.kernel = function == nullptr ? "?" : NameOf(function);
  record.function = function;
  record.grid[0] = grid.x, record.grid[1] = grid.y, record.grid[2] = grid.z;
  record.block[0] = block.x, record.block[1] = block.y, record.block[2] = block.z;
  record.dynamic_shared_bytes = shared;
  labkit::RecordLaunch(record);
  if (!labkit::replay::Recording()) return record;
  labkit::replay::LaunchNote note;
  note.kernel = function;
  std::copy(record.grid, record.grid + 3, note.grid);
  std::copy(record.block, record.block + 3, note.block);
  note.shared_bytes = shared;
  if (function == nullptr ||
      !labkit::PackArguments(function, args, note.arguments, note.param_offsets)) {
    labkit::replay::NoteUnsupported("a launch whose arguments the grader could not read");
    return record;
  }
  labkit::replay::NoteLaunch(note);
  return record;
}

// Runs `launch` (given the block to launch) with the launch noted once, however the runtime nests
// its entry points.
template <class Launch>
cudaError_t Noted(const void* function, dim3 grid, dim3 block, void** args, size_t shared,
                  Launch&& launch) {
  const bool outermost = t_launch_depth == 0;
  labkit::LaunchRecord noted;
  if (outermost) noted = NoteLaunch(function, grid, block, args, shared);
  // A record run only notes the launch: its kernels run in the replay, on the real inputs.
  if (labkit::replay::Recording()) return cudaSuccess;
  // A block the device a query is shown cannot hold is refused by the runtime itself.
  const dim3 run = labkit::PresentedDeviceRefusesBlock(block.x, block.y, block.z)
                       ? dim3(labkit::kBlockNoDeviceHolds)
                       : block;
  ++t_launch_depth;
  cudaError_t status = cudaSuccess;
  // In labgrade's counting run, the outermost entry is counted (launch_counters.h).
  if (!outermost || !labkit::CountedLaunch(noted, [&] { status = launch(run); }))
    status = launch(run);
  --t_launch_depth;
  return status;
}

}  // namespace

extern "C" cudaError_t __wrap___cudaGetKernel(cudaKernel_t* kernel, const void* function) {
  const cudaError_t status = __real___cudaGetKernel(kernel, function);
  if (status == cudaSuccess) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_functions[*kernel] = function;
  }
  return status;
}

extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void** args, size_t shared, cudaStream_t stream) {
  return Noted(FunctionOf(kernel), grid, block, args, shared, [&](dim3 run) {
    return __real___cudaLaunchKernel(kernel, grid, run, args, shared, stream);
  });
}

extern "C" cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                      void** args, size_t shared,
                                                      cudaStream_t stream) {
  return Noted(FunctionOf(kernel), grid, block, args, shared, [&](dim3 run) {
    return __real___cudaLaunchKernel_ptsz(kernel, grid, run, args, shared, stream);
  });
}

extern "C" cudaError_t __wrap_cudaLaunchKernel(const void* function, dim3 grid, dim3 block,
                                               void** args, size_t shared, cudaStream_t stream) {
  return Noted(function, grid, block, args, shared, [&](dim3 run) {
    return __real_cudaLaunchKernel(function, grid, run, args, shared, stream);
  });
}

extern "C" cudaError_t __wrap_cudaLaunchKernel_ptsz(const void* function, dim3 grid, dim3 block,
                                                    void** args, size_t shared,
                                                    cudaStream_t stream) {
  return Noted(function, grid, block, args, shared, [&](dim3 run) {
    return __real_cudaLaunchKernel_ptsz(function, grid, run, args, shared, stream);
  });
}

namespace labkit {
void InstallLaunchHook() {}  // the link's --wrap already routes every launch here
void UseSealedCounts(std::vector<LaunchRecord>&) {}
}  // namespace labkit
