// RAII owners for the CUDA resources the kit's own code uses: device memory and events.
// Move-only, so a buffer is freed exactly once whatever path the code takes out of a scope.
#pragma once

#include <cstddef>
#include <utility>

#include "labkit/cuda_check.cuh"

namespace labkit {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) LABKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() {
    // No check here: a destructor must not throw, and after a sticky error cudaFree fails anyway.
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

class Event {
 public:
  Event() { LABKIT_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

  void record(cudaStream_t stream = nullptr) { LABKIT_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  cudaEvent_t get() const { return event_; }

  // Milliseconds from `start` to this event; waits for this event first.
  float elapsed_since(const Event& start) const {
    LABKIT_CUDA_CHECK(cudaEventSynchronize(event_));
    float ms = 0.0f;
    LABKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace labkit
