// The device work a student's function asked for, as data: what the record run saw the function
// do with the CUDA runtime (allocations, copies, constant-memory writes, launches with their
// arguments), so that the replay run can do the same work on inputs the function never saw, with
// none of the function's host code running (docs/THREAT_MODEL.md).
//
// A plan comes out of a process the student's code controls: the replay treats it as untrusted
// input (bounded sizes, every reference checked), and it can only ask for device work that the
// student's own kernels then do. Host-computed results, cached results and forged reports have no
// way into the replay's outputs.
//
// Plain C++: the record side (link wraps, both backends) and the replay side share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace labkit::replay {

// The regions a device pointer can point into. The harness's three matrices come first, then
// every allocation the function made, numbered in the order it made them.
enum : int32_t { kRegionA = 0, kRegionB = 1, kRegionC = 2, kFirstAllocation = 3 };

// A host function of the student's (lab 02's vector_add_on_device) is given host arrays of the
// harness's: a copy from or into one of them is kept as a reference to that array (Ref.region is
// then its index in the harness's list), so that the replay moves the replay's own arrays instead
// of the bytes the record run saw.

// A device address as (region, byte offset). Region -1: no device memory the record knew.
struct Ref {
  int32_t region = -1;
  int64_t offset = 0;
  bool known() const { return region >= 0; }
};

// A pointer-sized word in a launch's argument bytes that holds an address: a device address is
// rewritten to the replay's region, an address in the program image (the CPU backend's kernel and
// runner functions) to the replay's own load address.
struct Relocation {
  uint32_t at = 0;     // byte offset in the argument bytes
  Ref device;          // when device.known()
  int64_t image = -1;  // else: offset from the start of the program image
};

enum class OpType : uint8_t {
  kAlloc = 1,      // region `dst.region` of `bytes`
  kFree,           // region `dst.region`
  kMemset,         // `bytes` at `dst` set to `value`
  kUpload,         // `data` to `dst`: bytes the function's host code produced
  kCopy,           // `bytes` from `src` to `dst`, both device memory
  kSymbolUpload,   // `data` to the __constant__/__device__ variable at `image` + `symbol_offset`
  kSymbolCopy,     // `bytes` from `src` to that variable
  kLaunch,         // a kernel launch (fields below)
  kFuncAttribute,  // cudaFuncSetAttribute(kernel at `image`, `value`, `attribute_value`)
  kHostUpload,     // `bytes` from the harness's host array `src` (an index) to `dst`
  kHostDownload,   // `bytes` from `src` into the harness's host array `dst` (an index)
  kUnsupported,    // something the replay cannot do; `note` names it
};

struct Op {
  OpType type = OpType::kUnsupported;
  Ref dst, src;
  uint64_t bytes = 0;
  int32_t value = 0;
  int64_t attribute_value = 0;
  int64_t image = -1;  // kernel or variable, as an offset in the program image
  uint64_t symbol_offset = 0;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  uint64_t shared_bytes = 0;
  std::vector<unsigned char> data;        // kUpload, kSymbolUpload; kLaunch: argument bytes
  std::vector<uint32_t> param_offsets;    // kLaunch, GPU: where each parameter starts in `data`
  std::vector<uint32_t> pointer_params;   // kLaunch, CPU backend: pointer parameters' indices
  std::vector<uint32_t> pointer_offsets;  //   ... and their byte offsets in `data`
  int64_t runner = -1;                    // kLaunch, CPU backend: image offset of the runner
  std::vector<Relocation> relocations;    // kLaunch
  std::string note;                       // kUnsupported
};

// What the record run saw of a host function's own calls, for exercises that grade those calls
// (lab 02's host functions): the replay, which does not call the function, checks these. Told by
// the process the function ran in, like the rest of the plan: a forged count buys no output.
struct CallCounts {
  int64_t returned = 0;  // the function's return value (a cudaError_t)
  uint64_t bytes_to_device = 0, bytes_to_host = 0;
  int64_t copies_2d = 0;  // cudaMemcpy2D calls between host and device
  int64_t launches = 0;
};

struct Plan {
  std::vector<Op> ops;
  std::optional<CallCounts> call;  // host functions (lab 02) only
  // What the function threw while it was recorded ("" when it returned): the work before the
  // throw is in `ops`, and the replay reports the exception as the case's failure, as a run of
  // the function itself would (an empty C would read as "never written", the wrong cause).
  std::string student_exception;
};

// Limits on what a plan may hold: it comes from the student's process.
inline constexpr std::size_t kMaxPlanBytes = 256u << 20;
inline constexpr std::size_t kMaxOps = 100000;
inline constexpr std::size_t kMaxLaunchArgumentBytes = 32768;  // CUDA's own limit is 32764
// What one record process keeps, all its plans together (replay_recorder.cpp): every plan is
// written to the grading machine's disk and copied once more for the replay. A function's own
// bytes copied to the device are a few matrices at most (two of 2048 x 2048 floats: 32 MiB).
inline constexpr std::size_t kMaxRecordedBytes = 128u << 20;

// Binary form (CBOR). Decode returns "" and fills `plan`, or says what is wrong with the bytes.
std::vector<uint8_t> EncodePlan(const Plan& plan);
std::string DecodePlan(const std::vector<uint8_t>& bytes, Plan& plan);

// File form: one plan per case, <folder>/<case id>.plan.
std::string PlanFileName(const std::string& case_id);
bool WritePlanFile(const std::string& path, const Plan& plan);
// "" and `plan` filled, or why the file cannot be used (missing, too large, malformed).
std::string ReadPlanFile(const std::string& path, Plan& plan);

}  // namespace labkit::replay
