#include "sealed_counts.h"

#include <cstring>

#include "sealed_tables.h"

namespace emu::detail {

void seal_launch_counts(const AccessCounts& counts) {
  sealed_append(SealedTable::kLaunchCounts, &counts, sizeof counts);
}

void begin_sealed_case() {
  size_t count = 0;
  sealed_items(SealedTable::kLaunchCounts, count);
  set_sealed_case_begin(count);
}

std::vector<AccessCounts> sealed_counts_of_case() {
  const std::vector<unsigned char> bytes =
      sealed_copy(SealedTable::kLaunchCounts, sealed_case_begin());
  std::vector<AccessCounts> counts(bytes.size() / sizeof(AccessCounts));
  if (!counts.empty()) std::memcpy(counts.data(), bytes.data(), bytes.size());
  return counts;
}

}  // namespace emu::detail
