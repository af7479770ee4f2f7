// For the tests of counted launches: counting switched on for a scope, and the last launch's
// counts.
#pragma once
#include <gtest/gtest.h>

#include "config.h"
#include "labkit_emu/access_counts.h"

namespace emu_test {

// Turns counting on (LABKIT_EMU_COUNT_ACCESSES) for one scope, optionally on several OS threads.
class CountingScope {
 public:
  explicit CountingScope(unsigned threads = 1) : saved_(emu::detail::config()) {
    const emu::detail::ConfigWrite c;
    c->count_accesses = true;
    c->threads = threads;
  }
  ~CountingScope() { *emu::detail::ConfigWrite() = saved_; }

 private:
  emu::detail::Config saved_;
};

inline emu::AccessCounts Last() {
  const emu::AccessCounts* counts = emu::detail::last_launch_access_counts();
  EXPECT_NE(counts, nullptr);
  return counts != nullptr ? *counts : emu::AccessCounts{};
}

}  // namespace emu_test
