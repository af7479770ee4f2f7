// The interface between the harness's plain C++ driver (harness_main.cpp: JSON, files) and its
// CUDA side (matmul_device.cu). Nothing here names a CUDA type, so the driver compiles with any C++
// compiler and is shared by the GPU and CPU backends.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device_info.h"
#include "harness_protocol.h"
#include "launch_log.h"
#include "replay_executor.h"
#include "transfer_log.h"

namespace labkit {

// C = A * B with A m x n, B n x k, C m x k, row-major. Device pointers unless `host_side`.
using MatmulFn = void (*)(const float* A, const float* B, float* C, int m, int n, int k);

// Integer parameters of one run (lab.yaml `params`), e.g. {"block_side": 8}.
using Params = std::map<std::string, long long>;
// The same with the run's parameters, for exercises whose function takes more than the matrices.
using MatmulParamsFn = void (*)(const float* A, const float* B, float* C, int m, int n, int k,
                                const Params& params);

struct MatmulExercise {
  const char* id;
  MatmulFn fn;
  bool host_side;  // a CPU function (lab 01's host version): takes host pointers
  MatmulParamsFn fn_params = nullptr;  // used instead of `fn` when set
};

// Each lab's harness table (labs/<lab>/harness.cu) defines this.
std::vector<MatmulExercise> lab_exercises();

// True in the kit's own replay program (replay_only_program.cpp, GPU only): linked with no lab's
// table and none of the student's code, it replays the plans of whatever matmul exercise the
// request names, on the student's device code loaded from labgrade's fatbinaries, and does nothing
// else. False in a lab's harness program.
bool replay_only_program();
// The kit's replay program: the student's device code the request names (GPU only,
// replay/student_device_code.h). "" when loaded, else why not.
std::string load_device_code(const replay::StudentImage& image, const std::string& dir);

enum class Layout {
  kGuarded,  // each matrix inside one allocation with guard zones before and after
  kExact,    // each matrix its own allocation of exactly its size (for memory checkers)
};

// How a run calls the student's code (docs/THREAT_MODEL.md): directly (host-side exercises, and
// the functions of labs that compute values on the host), recording the device work the function
// asks for, or replaying recorded work with none of the function's host code running.
enum class RunMode { kDirect, kRecord, kReplay };

// What a record or replay run needs besides the case.
struct ReplayContext {
  RunMode mode = RunMode::kDirect;
  const replay::StudentImage* image = nullptr;  // kReplay: what a plan may use
  const replay::Plan* plan = nullptr;           // kReplay: the work to do
  replay::Plan* recorded = nullptr;             // kRecord: filled with the work the function did
};

// Where one of the harness's matrices lies in device memory, so that labgrade can tell which matrix
// an address in compute-sanitizer's report belongs to (the tool knows addresses, not names).
struct BufferRecord {
  const char* name;        // "A", "B" or "C"
  std::uintptr_t address;  // of element 0, the pointer the student's function gets
  std::size_t bytes;       // the matrix alone, without guard zones
};

struct CaseOutcome {
  // A case_status word (harness_protocol.h); for replay_refused, `detail` says what the recorded
  // work asked for that the replay does not do.
  std::string status = case_status::kOk;
  std::string error;          // e.g. cudaErrorIllegalAddress
  std::string detail;
  std::vector<LaunchRecord> launches;     // what the student's function launched
  std::vector<TransferRecord> transfers;  // what it copied, and host-visible memory it set up
  std::vector<BufferRecord> buffers;      // A, B and C of the case, once allocated
};

struct MatmulCase {
  int m = 0, n = 0, k = 0;
  const Params* params = nullptr;  // the run's parameters; none when null
  const std::vector<float>* A = nullptr;
  const std::vector<float>* B = nullptr;
  ReplayContext replay;
};

struct TimingRequest {
  int m = 0, n = 0, k = 0;
  const Params* params = nullptr;
  std::vector<const std::vector<float>*> A_sets;
  std::vector<const std::vector<float>*> B_sets;
  int min_reps = 10;
  int max_reps = 200;
  double max_seconds = 5.0;
  double target_spread = 0.02;
  ReplayContext replay;  // kReplay: the student's side is the replay of a plan
};

struct TimingOutcome {
  CaseOutcome outcome;
  std::vector<double> student_ms;
  std::vector<double> baseline_ms;
  std::vector<std::vector<float>> outputs;  // the student's last C for each input set
  // Timed repetitions whose output differed from the kit's rows kernel's on the same fresh inputs.
  int mismatched_reps = 0;
  // Where the timed run's time went, in milliseconds (reported, never judged): buffers, uploads and
  // warm-up; the timed repetitions; the caching check and the downloads after them.
  double setup_ms = 0, repetitions_ms = 0, after_ms = 0;
};

// Milliseconds of the steady clock from `from` to `to`, for the timing line's phases.
inline double Milliseconds(
    std::chrono::steady_clock::time_point from,
    std::chrono::steady_clock::time_point to = std::chrono::steady_clock::now()) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// Calls the exercise's function (with `params` when it takes them; none: an empty set).
void call_matmul(const MatmulExercise& exercise, const float* A, const float* B, float* C, int m,
                 int n, int k, const Params* params);

DeviceInfo query_device();
// Ends the CUDA context (after the last response line), so checkers see a clean end of the
// program even though the harness leaves without running exit handlers.
void release_device();
CaseOutcome run_matmul_case(const MatmulExercise& exercise, Layout layout, const MatmulCase& c,
                            std::vector<float>& C);
TimingOutcome time_matmul(const MatmulExercise& exercise, const TimingRequest& request);

}  // namespace labkit
