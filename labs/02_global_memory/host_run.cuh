// How lab 02 runs a host function of the student's (one that owns its cudaMalloc, cudaMemcpy,
// launch and cudaFree): once as a record run, whose plan (common/harness/replay_plan.h) lists every
// allocation and free, so that a leak is counted rather than guessed; then directly, with the
// transfers and launches captured, for the values. Plus the kit's own upload and download.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "lab02_checks.cuh"
#include "labkit/device_buffer.cuh"
#include "launch_log.h"
#include "replay_recorder.h"
#include "transfer_log.h"

namespace lab02 {

template <class T>
std::vector<T> Download(const labkit::DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  LABKIT_CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

template <class T>
labkit::DeviceBuffer<T> Upload(const std::vector<T>& host) {
  labkit::DeviceBuffer<T> buffer(host.size());
  LABKIT_CUDA_CHECK(cudaMemcpy(buffer.get(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice));
  return buffer;
}

// What a host function of the student's did with the CUDA runtime.
struct HostRun {
  cudaError_t status = cudaSuccess;
  long long leaked = 0;  // allocations of the record run's plan that it never frees
  long long launches = 0;
  unsigned long long to_device = 0, to_host = 0;  // bytes
  long long copies_2d = 0;                        // cudaMemcpy2D calls between host and device
};

// `call` runs the student's function on the case's inputs; `record_call` the same on inputs of
// the record run's own (its kernels do not run, and its outputs are thrown away).
template <class Call, class RecordCall>
HostRun RunHostFunction(Call&& call, RecordCall&& record_call) {
  HostRun run;
  {
    const labkit::replay::HarnessMatrix none{};
    labkit::replay::PlanCapture capture(none, none, none);
    record_call();
    for (const labkit::replay::Op& op : capture.take().ops) {
      if (op.type == labkit::replay::OpType::kAlloc) ++run.leaked;
      if (op.type == labkit::replay::OpType::kFree) --run.leaked;
    }
  }
  labkit::TransferCapture transfers;
  labkit::LaunchCapture launches;
  run.status = call();
  cudaDeviceSynchronize();
  for (const labkit::TransferRecord& t : transfers.take()) {
    if (t.kind == labkit::TransferKind::kHostToDevice) run.to_device += t.bytes;
    if (t.kind == labkit::TransferKind::kDeviceToHost) run.to_host += t.bytes;
    if (t.call.rfind("cudaMemcpy2D", 0) == 0) ++run.copies_2d;
  }
  run.launches = static_cast<long long>(launches.take().size());
  return run;
}

inline std::string StatusCause(cudaError_t status) {
  if (status == cudaErrorNotSupported) return "the function still returns the starter's value";
  if (status == cudaErrorInvalidValue || status == cudaErrorInvalidMemcpyDirection)
    return std::string(cudaGetErrorName(status)) +
           ": a copy's kind does not match where its pointers live (cudaMemcpy takes the "
           "destination first, then the source)";
  return std::string("a CUDA call returned ") + cudaGetErrorName(status);
}

// The checks every host-side exercise shares: the returned status, leaks and the launch.
inline void CheckHostRun(labkit::QueryValues& v, const HostRun& run, const char* kernel) {
  Check(v, "returned_error", run.status, cudaSuccess, StatusCause(run.status));
  Check(v, "leaked_buffers", run.leaked, 0,
        std::to_string(run.leaked) +
            " device allocation(s) of the function are never given to cudaFree, so every call "
            "leaves them behind (the record run's plan allocates them and never frees them)");
  Check(v, "kernel_launched", static_cast<double>(std::min(run.launches, 1LL)), 1,
        std::string("no kernel was launched: the result must come from ") + kernel);
}

}  // namespace lab02
