#include "sealed_counts.h"

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
  size_t count = 0;
  const auto* all =
      static_cast<const AccessCounts*>(sealed_items(SealedTable::kLaunchCounts, count));
  const uint64_t begin = sealed_case_begin();
  if (all == nullptr || begin >= count) return {};
  return {all + begin, all + count};
}

const void* sealed_entries() {
  size_t count = 0;
  return sealed_items(SealedTable::kLaunchCounts, count);
}

}  // namespace emu::detail
