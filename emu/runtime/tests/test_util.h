// Helpers shared by the runtime's tests: device buffers, the order switch and the report file.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"

namespace emu_test {

// Runs the launches of one scope in the given thread order.
class OrderScope {
 public:
  explicit OrderScope(const char* order) : saved_(emu::detail::config()) {
    const emu::detail::ConfigWrite c;
    EXPECT_TRUE(emu::detail::parse_order(order, &c->order, &c->seed)) << order;
  }
  ~OrderScope() { *emu::detail::ConfigWrite() = saved_; }

 private:
  emu::detail::Config saved_;
};

inline const std::vector<const char*>& all_orders() {
  static const std::vector<const char*> orders = {"forward", "reverse", "random:1", "random:42"};
  return orders;
}

template <class T>
T* to_device(const std::vector<T>& host) {
  T* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, host.size() * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> host(n);
  EXPECT_EQ(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// The report file (LABKIT_EMU_REPORT, set by main.cpp) and what was appended to it since `mark`.
std::string report_path();
size_t report_size();
std::string report_since(size_t mark);

// Writes the resource report for device_test.cpp's kernels and points LABKIT_EMU_KERNELS at it.
void write_resource_report();

// Clears a sticky error left by a test that provoked one.
inline void reset_device() { ASSERT_EQ(cudaDeviceReset(), cudaSuccess); }
}  // namespace emu_test
