// Run-time switches from the environment (docs/DESIGN.md lists them), read once.
#pragma once
#include <cstdint>
#include <string>

namespace emu::detail {

enum class Order { forward, reverse, random };

struct Config {
  Order order = Order::forward;
  uint64_t seed = 0;     // for Order::random
  unsigned threads = 1;  // OS worker threads for blocks
  std::string device = "h100-sxm";
  std::string kernels_path;  // resource report, empty when absent
  size_t fiber_stack_bytes = 128 * 1024;
  // LABKIT_EMU_COUNT_ACCESSES=1: count each launch's memory accesses (labkit_emu/access_counts.h).
  bool count_accesses = false;
};

// Parses a LABKIT_EMU_ORDER value; false (and *out untouched) when it is malformed.
bool parse_order(const char* text, Order* order, uint64_t* seed);

const Config& config();
// Test seam: the settings the next launches use (tests switch the thread order in-process).
Config& mutable_config();
}  // namespace emu::detail
