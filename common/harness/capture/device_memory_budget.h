// How much device memory one harness process may hold at once (GPU backend). When a class is
// graded, many harnesses share one GPU: a submission that allocates on every call and never frees,
// or grabs all it can, would otherwise starve the others' allocations and fail correct work. The
// grader gives the limit in $LABKIT_DEVICE_MEMORY_LIMIT (bytes); device_memory_wrap_gpu.cu asks
// this budget before each allocation and tells it of each free.
//
// Plain C++ (no CUDA types), so that its accounting is tested on machines without a GPU.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "harness_protocol.h"

namespace labkit {

class DeviceMemoryBudget {
 public:
  explicit DeviceMemoryBudget(std::size_t limit_bytes) : limit_(limit_bytes) {}

  // Reads $LABKIT_DEVICE_MEMORY_LIMIT; no limit where it is unset, empty, zero or not a number.
  static std::size_t LimitFromEnvironment();

  // Whether `bytes` more fit under the limit (always, when there is none). A refusal is counted,
  // and the first one kept, under the name of the `call` that asked.
  bool Admit(std::size_t bytes, const char* call = "an allocation");
  // An allocation the runtime made after Admit said yes.
  void Allocated(const void* ptr, std::size_t bytes);
  // A pointer given to a free call; one this budget never saw is ignored.
  void Freed(const void* ptr);

  std::size_t in_use() const;
  std::size_t limit() const;
  // The bytes counted for a live allocation at `ptr`; 0 for a pointer this budget never saw.
  std::size_t SizeOf(const void* ptr) const;
  // A warm replay process's next request (warm_replay.h): the limit it gives, nothing refused yet,
  // and the allocations still live, forgotten and returned for the caller to free.
  std::unordered_map<const void*, std::size_t> Restart(std::size_t limit_bytes);
  // Whether the free wraps zero an allocation before freeing it (a warm replay process: the next
  // request's allocations may be given the same memory).
  bool zero_before_free() const { return zero_before_free_; }
  void set_zero_before_free(bool zero) { zero_before_free_ = zero; }
  int refusals() const;
  // The first allocation refused, as the harness reports it to labgrade on its own channel (the
  // case line), so that the grader's message never rests on what the process printed.
  std::optional<MemoryRefusal> first_refusal() const;
  // The line a refusal prints once to stderr, for the student's log.
  std::string RefusalNote(const char* call, std::size_t bytes) const;

 private:
  std::size_t limit_;              // 0: none
  bool zero_before_free_ = false;  // set once, before the first request
  mutable std::mutex mutex_;
  std::unordered_map<const void*, std::size_t> live_;
  std::size_t in_use_ = 0;
  int refusals_ = 0;
  std::optional<MemoryRefusal> first_refusal_;
};

// The process's budget (LimitFromEnvironment(), read once).
DeviceMemoryBudget& ProcessDeviceMemoryBudget();

}  // namespace labkit
