// A matrix in device memory, laid out so that stray writes and reads can be caught.
//
// kGuarded: one allocation [guard | data | guard]; the guards hold a known bit pattern that is
//   checked after every run, so a write just past either end is found on any backend.
// kExact: the data alone, in an allocation of exactly its size, so that compute-sanitizer (GPU) or
//   the CPU backend's guard pages see any access past the end, reads included.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "labkit/device_buffer.cuh"
#include "matmul_harness.h"
#include "replay_recorder.h"

namespace labkit {

class DeviceMatrix {
 public:
  static constexpr std::size_t kGuardFloats = 1024;
  static constexpr std::uint32_t kGuardBits = 0xA5C3E187u;  // an unlikely float: a quiet negative

  DeviceMatrix(std::size_t count, Layout layout)
      : count_(count),
        guard_(layout == Layout::kGuarded ? kGuardFloats : 0),
        storage_(count + 2 * guard_) {
    if (guard_ > 0) {
      const std::vector<float> pattern(guard_, guard_value());
      LABKIT_CUDA_CHECK(cudaMemcpy(storage_.get(), pattern.data(), guard_ * sizeof(float),
                                   cudaMemcpyHostToDevice));
      LABKIT_CUDA_CHECK(cudaMemcpy(storage_.get() + guard_ + count_, pattern.data(),
                                   guard_ * sizeof(float), cudaMemcpyHostToDevice));
    }
  }

  float* data() const { return storage_.get() + guard_; }
  std::size_t size() const { return count_; }
  // The matrix as record and replay see it: the pointer the function gets, and the guard zones
  // around it that belong to the same allocation.
  replay::HarnessMatrix region() const {
    return {data(), count_ * sizeof(float), guard_ * sizeof(float)};
  }

  void upload(const std::vector<float>& values) {
    LABKIT_CUDA_CHECK(
        cudaMemcpy(data(), values.data(), count_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  std::vector<float> download() const {
    std::vector<float> values(count_);
    LABKIT_CUDA_CHECK(
        cudaMemcpy(values.data(), data(), count_ * sizeof(float), cudaMemcpyDeviceToHost));
    return values;
  }
  // All bits set is a NaN: an element the kernel never wrote stays NaN and can never pass.
  void poison() { LABKIT_CUDA_CHECK(cudaMemset(data(), 0xFF, count_ * sizeof(float))); }

  // Empty when both guards are intact; otherwise says where they were hit.
  std::string check_guards(const char* name) const {
    if (guard_ == 0) return "";
    std::vector<float> all(storage_.size());
    LABKIT_CUDA_CHECK(
        cudaMemcpy(all.data(), storage_.get(), storage_.bytes(), cudaMemcpyDeviceToHost));
    const std::size_t before = count_changed(all.data(), guard_);
    const std::size_t after = count_changed(all.data() + guard_ + count_, guard_);
    if (before == 0 && after == 0) return "";
    std::string what = std::string(name) + ": ";
    if (before > 0) what += std::to_string(before) + " element(s) just before the start";
    if (before > 0 && after > 0) what += " and ";
    if (after > 0) what += std::to_string(after) + " element(s) just past the end";
    return what + " were overwritten";
  }

 private:
  static float guard_value() {
    float f;
    std::memcpy(&f, &kGuardBits, sizeof f);
    return f;
  }
  static std::size_t count_changed(const float* values, std::size_t n) {
    std::size_t changed = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &values[i], sizeof bits);
      changed += bits != kGuardBits;
    }
    return changed;
  }

  std::size_t count_;
  std::size_t guard_;
  DeviceBuffer<float> storage_;
};

}  // namespace labkit
