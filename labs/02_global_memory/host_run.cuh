// How lab 02 runs a host function of the student's (one that owns its cudaMalloc, cudaMemcpy,
// launch and cudaFree): recorded, then replayed on fresh inputs (RecordAndReplay below). Plus the
// kit's own upload and download.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab02_checks.cuh"
#include "labkit/device_buffer.cuh"
#include "launch_log.h"
#include "query_harness.h"
#include "replay_executor.h"
#include "replay_plan.h"
#include "replay_recorder.h"
#include "student_call.h"
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

// A host function of the student's is called once, as a record run (docs/THREAT_MODEL.md): on
// arrays of the record's own values, with its kernels not run, while the kit's link wraps note
// every allocation, copy and launch into a plan. Copies from and into the arrays it was given are
// kept as references to those arrays. The plan is then replayed on arrays of fresh values drawn
// after the function has returned, with none of its host code running: what comes back into the
// output array was copied there from the device, after the student's kernels ran on inputs the
// host code never saw. A result the host code computed itself reaches the device only as the
// record's bytes, which are wrong for the replay's inputs.
//
// labgrade runs the two in processes of their own (QueryRecording: a record run writes the plan
// beside its request, a replay run reads it there), so that the process that replays, checks and
// reports has run none of the function's host code; a direct run does both in one process.

// The arrays a host function is given, in the order of its parameters; the last is its output.
using HostArrays = std::vector<std::vector<float>*>;

// What a host function of the student's did with the CUDA runtime, and what its replay made.
struct HostRun {
  bool recorded_only = false;  // a record run: the plan is written, there is nothing to check
  cudaError_t status = cudaSuccess;
  long long leaked = 0;  // allocations of the plan that it never frees
  long long launches = 0;
  unsigned long long to_device = 0, to_host = 0;  // bytes
  long long copies_2d = 0;                        // cudaMemcpy2D calls between host and device
  long long literal_uploads = 0;  // copies to the device from host memory other than the inputs
  std::string refused;            // why the replay could not repeat the work ("" if it did)
  labkit::replay::Plan plan;      // what the record saw, for checks of where the work went
};

// The plan of `record_call()` on `record`, with what the link wraps counted of its calls.
template <class RecordCall>
labkit::replay::Plan RecordHostCall(const HostArrays& record, RecordCall&& record_call) {
  std::vector<labkit::replay::HostArray> arrays;
  for (const std::vector<float>* a : record) arrays.push_back({a->data(), 4 * a->size()});
  const labkit::replay::HarnessMatrix none{};
  labkit::replay::PlanCapture capture(none, none, none, std::move(arrays));
  labkit::TransferCapture transfers;
  labkit::LaunchCapture launches;
  labkit::replay::CallCounts counts;
  counts.returned = record_call();
  cudaDeviceSynchronize();
  labkit::replay::Plan plan = capture.take();
  for (const labkit::TransferRecord& t : transfers.take()) {
    if (t.kind == labkit::TransferKind::kHostToDevice) counts.bytes_to_device += t.bytes;
    if (t.kind == labkit::TransferKind::kDeviceToHost) counts.bytes_to_host += t.bytes;
    if (t.call.rfind("cudaMemcpy2D", 0) == 0) ++counts.copies_2d;
  }
  counts.launches = static_cast<long long>(launches.take().size());
  plan.call = counts;
  return plan;
}

// The plan this case replays: recorded here (a direct or record run; a record run writes it
// beside its request and has nothing more to do), or read where the record run wrote it. An
// exception the function threw is written into the plan and thrown on; the replay throws it
// again, so that the replay run reports it as the case's failure.
template <class RecordCall>
labkit::replay::Plan PlanOfTheCall(const HostArrays& record, RecordCall&& record_call,
                                   const labkit::QueryRecording& recording) {
  labkit::replay::Plan plan;
  if (recording.mode == labkit::RunMode::kReplay) {
    if (std::string missing = labkit::replay::ReadPlanFile(recording.plan_path, plan);
        !missing.empty())
      throw labkit::NotRecorded(missing);
    if (!plan.student_exception.empty()) throw labkit::StudentException(plan.student_exception);
    if (!plan.call) throw labkit::NotRecorded("the recorded work holds no count of the calls");
    return plan;
  }
  try {
    plan = RecordHostCall(record, record_call);
  } catch (const labkit::StudentException& e) {
    plan.student_exception = e.what();
    if (recording.mode == labkit::RunMode::kRecord)
      labkit::replay::WritePlanFile(recording.plan_path, plan);
    throw;
  }
  if (recording.mode == labkit::RunMode::kRecord &&
      !labkit::replay::WritePlanFile(recording.plan_path, plan))
    throw std::runtime_error("cannot write " + recording.plan_path);
  return plan;
}

// Records `record_call()` on `record`, then replays its device work on the arrays `fresh()` makes
// once the function has returned (same sizes as `record`, index by index), as `v`'s run says.
// The replay may launch what labgrade's list of the student's kernels holds.
template <class RecordCall, class Fresh>
HostRun RecordAndReplay(const HostArrays& record, RecordCall&& record_call, Fresh&& fresh,
                        const labkit::QueryValues& v) {
  const labkit::replay::StudentImage* image = v.student_image();
  if (image == nullptr)  // a fault of the kit's (the harness then reports an error line)
    throw std::runtime_error("labgrade sent no list of the program's kernels to replay against");
  HostRun run;
  labkit::replay::Plan plan = PlanOfTheCall(record, record_call, v.recording());
  if (v.recording().mode == labkit::RunMode::kRecord) {
    run.recorded_only = true;
    return run;
  }
  run.status = static_cast<cudaError_t>(plan.call->returned);
  run.to_device = plan.call->bytes_to_device;
  run.to_host = plan.call->bytes_to_host;
  run.copies_2d = plan.call->copies_2d;
  run.launches = plan.call->launches;
  for (const labkit::replay::Op& op : plan.ops) {
    if (op.type == labkit::replay::OpType::kAlloc) ++run.leaked;
    if (op.type == labkit::replay::OpType::kFree) --run.leaked;
    if (op.type == labkit::replay::OpType::kUpload) ++run.literal_uploads;
  }
  std::vector<labkit::replay::ReplayHostArray> arrays;
  for (std::vector<float>* a : fresh()) arrays.push_back({a->data(), 4 * a->size()});
  const labkit::replay::HarnessMatrix none{};
  labkit::replay::PlanReplay replayed(*image, none, none, none, std::move(arrays));
  replayed.PoisonAllocations(kAllocationPoisonByte);
  run.refused = replayed.Run(plan);
  run.plan = std::move(plan);
  // The kernels' own errors, as the case's error (Guarded).
  LABKIT_CUDA_CHECK(cudaGetLastError());
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
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

// The checks every host-side exercise shares: the returned status, leaks, the launch and whether
// the replay could repeat the work.
inline void CheckHostRun(labkit::QueryValues& v, const HostRun& run, const char* kernel) {
  Check(v, "returned_error", run.status, cudaSuccess, StatusCause(run.status));
  Check(v, "leaked_buffers", run.leaked, 0,
        std::to_string(run.leaked) +
            " device allocation(s) of the function are never given to cudaFree, so every call "
            "leaves them behind (the record run's plan allocates them and never frees them)");
  Check(v, "kernel_launched", static_cast<double>(std::min(run.launches, 1LL)), 1,
        std::string("no kernel was launched: the result must come from ") + kernel);
  Check(v, "work_replayed", run.refused.empty() ? 1 : 0, 1,
        "the grader repeats your function's device work on new inputs, and could not: " +
            run.refused);
}

// Why an output value `got` can be wrong although the function ran: it was never written on the
// device, or values the host code made were copied there (right only for the record's inputs).
inline std::string HostValuesCause(const HostRun& run, float got) {
  if (IsAllocationPoison(got))
    return "never written on the device: what was copied back is what the device array held "
           "before any kernel wrote it (values your host code wrote into the output itself are "
           "not graded: the grader repeats the device work on other inputs)";
  if (run.literal_uploads == 0) return "";
  return "your function copied to the device " + std::to_string(run.literal_uploads) +
         " block(s) of values that its host code made, not taken from its input arrays: the "
         "grader repeats the device work on other inputs, so only what the kernel computes from "
         "the copied inputs counts";
}

}  // namespace lab02
