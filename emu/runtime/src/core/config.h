// Run-time switches from the environment (docs/DESIGN.md lists them), read once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace emu::detail {

enum class Order { forward, reverse, random };

// A fiber's stack, each CUDA thread's. A constant, not a setting: the count takes an access within
// this much of a thread's frame for its own stack, and a setting lives in memory a kernel of an
// uncounted launch could widen (docs/THREAT_MODEL.md).
inline constexpr size_t kFiberStackBytes = 128 * 1024;

struct Config {
  Order order = Order::forward;
  uint64_t seed = 0;     // for Order::random
  unsigned threads = 1;  // OS worker threads for blocks
  std::string device = "h100-sxm";
  std::string kernels_path;  // resource report, empty when absent
  // LABKIT_EMU_COUNT_ACCESSES=1: count each launch's memory accesses (labkit_emu/access_counts.h).
  bool count_accesses = false;
};

// Parses a LABKIT_EMU_ORDER value; false (and *out untouched) when it is malformed.
bool parse_order(const char* text, Order* order, uint64_t* seed);

const Config& config();
// The settings, writable while this lives (run_settings.h's setters, and the tests, which switch
// the thread order in-process): `ConfigWrite()->threads = 2;`. They are read-only otherwise.
class ConfigWrite {
 public:
  ConfigWrite();
  ~ConfigWrite();
  ConfigWrite(const ConfigWrite&) = delete;
  ConfigWrite& operator=(const ConfigWrite&) = delete;
  Config* operator->() const;
  Config& operator*() const;
};
}  // namespace emu::detail
