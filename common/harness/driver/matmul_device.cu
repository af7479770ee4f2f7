// The CUDA side of the matrix-multiply harness: runs one case of a student's function on fresh,
// poisoned buffers, and times it against the kit's rows kernel. Every failure becomes a
// CaseOutcome; only labgrade decides what it means for the grade.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "baseline_rows.cuh"
#include "device_matrix.cuh"
#include "forward_error.h"
#include "fresh_inputs.cuh"
#include "gpu_turn.h"
#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"
#include "matmul_harness.h"
#include "student_call.h"
#include "timing_stats.h"
#ifndef __LABKIT_EMU__
#include "student_device_code.h"
#endif

namespace labkit {
namespace {

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute_or_zero(cudaDeviceAttr attr) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, 0) != cudaSuccess) {
    cudaGetLastError();  // a missing attribute is not the student's error
    return 0;
  }
  return value;
}

// Waits for everything the student started and turns the first error into an outcome.
CaseOutcome finish_launch() {
  CaseOutcome outcome;
  cudaError_t err =
      cudaGetLastError();  // launch errors (bad configuration, too much shared memory)
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // errors while the kernel ran
  if (err != cudaSuccess) {
    outcome.status = case_status::kCudaError;
    outcome.error = cudaGetErrorName(err);
    outcome.detail = cudaGetErrorString(err);
  }
  return outcome;
}

// Calls the student's function. A host-side one writes `host_C`, which the caller uploads once the
// capture of the student's own transfers has ended.
void call_exercise(const MatmulExercise& ex, DeviceMatrix& A, DeviceMatrix& B, DeviceMatrix& C,
                   const MatmulCase& c, std::vector<float>& host_C) {
  if (!ex.host_side) {
    call_student([&] { call_matmul(ex, A.data(), B.data(), C.data(), c.m, c.n, c.k, c.params); });
    return;
  }
  host_C.assign(C.size(), 0.0f);
  std::memset(host_C.data(), 0xFF, host_C.size() * sizeof(float));  // poisoned: NaN
  call_student([&] {
    call_matmul(ex, c.A->data(), c.B->data(), host_C.data(), c.m, c.n, c.k, c.params);
  });
}

// The student's code gets the inputs as `const`; a kernel that writes them anyway (swapped
// arguments, say) must not go unnoticed.
std::string check_inputs(const DeviceMatrix& A, const DeviceMatrix& B, const MatmulCase& c) {
  if (A.download() != *c.A) return "input A was modified by the kernel";
  if (B.download() != *c.B) return "input B was modified by the kernel";
  return "";
}

// The replay of a case's recorded work: the outcome once the device is done with it.
CaseOutcome replay_work(const ReplayContext& r, DeviceMatrix& A, DeviceMatrix& B, DeviceMatrix& C) {
  if (!r.plan->student_exception.empty())
    return {case_status::kStudentException, "", r.plan->student_exception, {}};
  replay::PlanReplay work(*r.image, A.region(), B.region(), C.region());
  const std::string refused = work.Run(*r.plan);
  CaseOutcome outcome = finish_launch();
  if (!refused.empty() && outcome.status == case_status::kOk) {
    outcome.status = case_status::kReplayRefused;
    outcome.detail = refused;
  }
  return outcome;
}

}  // namespace

void call_matmul(const MatmulExercise& ex, const float* A, const float* B, float* C, int m, int n,
                 int k, const Params* params) {
  static const Params kNone;
  if (ex.fn_params != nullptr) {
    ex.fn_params(A, B, C, m, n, k, params != nullptr ? *params : kNone);
  } else {
    ex.fn(A, B, C, m, n, k);
  }
}

std::string load_device_code(const replay::StudentImage& image, const std::string& dir) {
#ifdef __LABKIT_EMU__
  (void)dir;
  return image.fatbins.empty() ? "" : "the CPU backend loads no fatbinary";
#else
  return replay::LoadStudentDeviceCode(image, dir);
#endif
}

DeviceInfo query_device() {
  DeviceInfo info;
#ifdef __LABKIT_EMU__
  info.backend = "cpu";
#else
  info.backend = "gpu";
#endif
  cudaDeviceProp prop{};
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  info.name = prop.name;
  info.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) info.driver = version_text(v);
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) info.runtime = version_text(v);
  info.sm_clock_mhz = attribute_or_zero(cudaDevAttrClockRate) / 1000;
  info.mem_clock_mhz = attribute_or_zero(cudaDevAttrMemoryClockRate) / 1000;
  info.pageable_memory_access = attribute_or_zero(cudaDevAttrPageableMemoryAccess);
  return info;
}

void release_device() {
  cudaDeviceSynchronize();
  cudaDeviceReset();
}

namespace {

// One case on buffers of its own; `buffers` is filled as soon as they are allocated, so that an
// outcome that ends in a CUDA error still says where they were.
CaseOutcome run_case(const MatmulExercise& ex, Layout layout, const MatmulCase& c,
                     std::vector<float>& C_out, std::vector<BufferRecord>& buffers) {
  try {
    DeviceMatrix A(std::size_t(c.m) * c.n, layout);
    DeviceMatrix B(std::size_t(c.n) * c.k, layout);
    DeviceMatrix C(std::size_t(c.m) * c.k, layout);
    for (const auto& [matrix, name] :
         {std::pair<const DeviceMatrix*, const char*>{&A, "A"}, {&B, "B"}, {&C, "C"}})
      buffers.push_back(
          {name, reinterpret_cast<std::uintptr_t>(matrix->data()), matrix->size() * sizeof(float)});
    A.upload(*c.A);
    B.upload(*c.B);
    C.poison();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());

    CaseOutcome outcome;
    std::vector<float> host_C;
    {
      // Open while the student's code runs, and until its work on the device is done (a thread it
      // left behind could still be copying).
      LaunchCapture launches;
      TransferCapture transfers;
      if (c.replay.mode == RunMode::kReplay) {
        outcome = replay_work(c.replay, A, B, C);
      } else if (c.replay.mode == RunMode::kRecord) {
        replay::PlanCapture plan(A.region(), B.region(), C.region());
        try {
          call_exercise(ex, A, B, C, c, host_C);
        } catch (const StudentException& e) {
          *c.replay.recorded = plan.take();
          c.replay.recorded->student_exception = e.what();
          throw;
        }
        outcome = finish_launch();
        *c.replay.recorded = plan.take();
      } else {
        call_exercise(ex, A, B, C, c, host_C);
        outcome = finish_launch();
      }
      outcome.launches = launches.take();
      outcome.transfers = transfers.take();
    }
    if (outcome.status != case_status::kOk) return outcome;
    if (ex.host_side) C.upload(host_C);

    C_out = C.download();
    for (const auto& [matrix, name] :
         {std::pair<const DeviceMatrix*, const char*>{&A, "A"}, {&B, "B"}, {&C, "C"}}) {
      const std::string hit = matrix->check_guards(name);
      if (!hit.empty())
        return {case_status::kGuardViolation, "", hit, outcome.launches, outcome.transfers};
    }
    const std::string modified = check_inputs(A, B, c);
    if (!modified.empty())
      return {case_status::kInputModified, "", modified, outcome.launches, outcome.transfers};
    return outcome;
  } catch (const CudaError& e) {
    return {case_status::kCudaError, cudaGetErrorName(e.code()), e.what(), {}};
  } catch (const StudentException& e) {
    return {case_status::kStudentException, "", e.what(), {}};
  }
}

}  // namespace

CaseOutcome run_matmul_case(const MatmulExercise& ex, Layout layout, const MatmulCase& c,
                            std::vector<float>& C_out) {
  std::vector<BufferRecord> buffers;
  CaseOutcome outcome = run_case(ex, layout, c, C_out, buffers);
  outcome.buffers = std::move(buffers);
  return outcome;
}

namespace {

struct TimedBuffers {
  std::vector<std::unique_ptr<DeviceMatrix>> A, B, C;
  std::unique_ptr<DeviceMatrix> baseline_C;
};

// Writes a buffer twice the size of L2, so every timed run starts from DRAM as a real one would.
class L2Flusher {
 public:
  explicit L2Flusher(long long l2_bytes)
      : buffer_(static_cast<std::size_t>(std::max<long long>(2 * l2_bytes, 1 << 20))) {}
  void flush(int salt) { LABKIT_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), salt, buffer_.size())); }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

double timed_call(L2Flusher& flusher, int salt, const std::function<void()>& call) {
  Event start, stop;
  flusher.flush(salt);
  // The flush (and C's poison before it) must be done before the call starts: work the function
  // puts on a stream of its own does not wait for the default stream.
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  start.record();
  call();
  // Wait for every stream before the stop event: work the function left running on a stream of
  // its own is part of its time. The host round trip this adds (microseconds) is paid alike by
  // the student's kernel, the kit's rows kernel and the reference.
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  stop.record();
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw_cuda_error(err, "timed launch", __FILE__, __LINE__);
  return stop.elapsed_since(start);
}

bool settled(const TimingRequest& r, const TimingOutcome& t, double seconds) {
  const int reps = static_cast<int>(t.student_ms.size());
  if (reps < r.min_reps) return false;
  if (reps >= r.max_reps || seconds >= r.max_seconds) return true;
  return relative_spread(t.student_ms) <= r.target_spread &&
         relative_spread(t.baseline_ms) <= r.target_spread;
}

}  // namespace

TimingOutcome time_matmul(const MatmulExercise& ex, const TimingRequest& r) {
  TimingOutcome t;
  const auto started = std::chrono::steady_clock::now();
  try {
    const DeviceInfo info = query_device();
    const std::size_t sets = r.A_sets.size();
    TimedBuffers buf;
    for (std::size_t s = 0; s < sets; ++s) {
      buf.A.push_back(std::make_unique<DeviceMatrix>(std::size_t(r.m) * r.n, Layout::kExact));
      buf.B.push_back(std::make_unique<DeviceMatrix>(std::size_t(r.n) * r.k, Layout::kExact));
      buf.C.push_back(std::make_unique<DeviceMatrix>(std::size_t(r.m) * r.k, Layout::kExact));
      buf.A[s]->upload(*r.A_sets[s]);
      buf.B[s]->upload(*r.B_sets[s]);
    }
    buf.baseline_C = std::make_unique<DeviceMatrix>(std::size_t(r.m) * r.k, Layout::kExact);
    L2Flusher flusher(info.l2_bytes);

    std::string refused;  // the replay's first refusal, if any
    auto student = [&](std::size_t s) {
      return [&, s] {
        if (r.replay.mode != RunMode::kReplay) {
          call_matmul(ex, buf.A[s]->data(), buf.B[s]->data(), buf.C[s]->data(), r.m, r.n, r.k,
                      r.params);
          return;
        }
        replay::PlanReplay work(*r.replay.image, buf.A[s]->region(), buf.B[s]->region(),
                                buf.C[s]->region());
        const std::string why = work.Run(*r.replay.plan);
        if (refused.empty()) refused = why;
        // Its allocations are freed here, inside the timed region, as the function's own
        // cudaFree would be.
      };
    };
    auto baseline = [&](std::size_t s) {
      return [&, s] {
        baseline_rows(buf.A[s]->data(), buf.B[s]->data(), buf.baseline_C->data(), r.m, r.n, r.k);
      };
    };
    // The GPU alone from the warm-up to the last repetition (in a batch, the kit's replay program
    // asks for it only now: gpu_turn.h). Buffers and inputs are set up beside other runs.
    std::optional<ScopedGpuTurn> alone(std::in_place, GpuTurn::kExclusive);
    for (std::size_t s = 0; s < sets; ++s) {  // warm-up: module load, first-touch, clocks
      student(s)();
      baseline(s)();
    }
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());

    // Every timed repetition multiplies inputs drawn just before it, from a seed no one outside
    // this process knows, and its output is compared with the rows kernel's on the same inputs.
    const std::uint64_t secret = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
    // Both outputs lie within the forward-error bound of the exact product, and the inputs are in
    // [-1, 1), so sum |a * b| < n: they differ by at most twice the bound (and 1% for rounding in
    // the comparison itself).
    const float tolerance = static_cast<float>(2.0 * ForwardErrorBound(r.n, double(r.n)) * 1.01);
    const auto begin = std::chrono::steady_clock::now();
    t.setup_ms = Milliseconds(started);
    for (int rep = 0;; ++rep) {
      const std::size_t s = rep % sets;
      FillFresh(buf.A[s]->data(), buf.A[s]->size(), secret, 2 * std::uint64_t(rep));
      FillFresh(buf.B[s]->data(), buf.B[s]->size(), secret, 2 * std::uint64_t(rep) + 1);
      buf.C[s]->poison();  // a call that skips the work leaves NaN behind
      // Alternate who goes first, so neither always runs on a GPU the other just warmed.
      if (rep % 2 == 0) {
        t.student_ms.push_back(timed_call(flusher, rep, student(s)));
        t.baseline_ms.push_back(timed_call(flusher, rep + 1, baseline(s)));
      } else {
        t.baseline_ms.push_back(timed_call(flusher, rep, baseline(s)));
        t.student_ms.push_back(timed_call(flusher, rep + 1, student(s)));
      }
      if (CountDifferences(buf.C[s]->data(), buf.baseline_C->data(), buf.C[s]->size(),
                           tolerance) > 0)
        ++t.mismatched_reps;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (settled(r, t, seconds)) break;
    }
    t.repetitions_ms = Milliseconds(begin);
    alone.reset();
    const auto repetitions_ended = std::chrono::steady_clock::now();
    if (!refused.empty()) {
      t.outcome = {case_status::kReplayRefused, "", refused, {}};
      return t;
    }

    // Caching check: give each set's buffers the next set's data, run once more, and hand back
    // those outputs. Output s must equal A[(s+1)%sets] * B[(s+1)%sets]; a function that reuses a
    // result by pointer returns the old product and fails.
    for (std::size_t s = 0; s < sets; ++s) {
      buf.A[s]->upload(*r.A_sets[(s + 1) % sets]);
      buf.B[s]->upload(*r.B_sets[(s + 1) % sets]);
      buf.C[s]->poison();
      LABKIT_CUDA_CHECK(cudaDeviceSynchronize());  // as in timed_call: poison first, then the call
      student(s)();
    }
    const CaseOutcome last = finish_launch();
    if (last.status != case_status::kOk) {
      t.outcome = last;
      return t;
    }
    for (std::size_t s = 0; s < sets; ++s) t.outputs.push_back(buf.C[s]->download());
    t.after_ms = Milliseconds(repetitions_ended);
  } catch (const CudaError& e) {
    t.outcome = {case_status::kCudaError, cudaGetErrorName(e.code()), e.what(), {}};
  }
  return t;
}

}  // namespace labkit
