#include "own_memory.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <vector>

#include "labkit_emu/device_functions.h"
#include "watched_data.h"

namespace emu::detail {
namespace {
using Range = std::pair<uintptr_t, uintptr_t>;

struct Found {
  std::vector<Range> ranges;  // thread-local blocks, and writable segments where `segments`
  std::vector<Range> relro;   // read-only once relocated: cut out of the writable segments
  bool segments = false;
};

int add_module(dl_phdr_info* info, size_t, void* data) {
  auto& found = *static_cast<Found*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    if (ph.p_type == PT_TLS && info->dlpi_tls_data != nullptr) {
      const auto tls = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
      found.ranges.push_back({tls, tls + ph.p_memsz});
    } else if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) != 0 && found.segments) {
      found.ranges.push_back({begin, end});
    } else if (ph.p_type == PT_GNU_RELRO) {
      // Vtables and the GOT: nothing there to change, or to tell one launch from another by.
      found.relro.push_back({begin, end});
    }
  }
  return 0;
}

// `ranges` less `hole`.
std::vector<Range> cut(const std::vector<Range>& ranges, const Range& hole) {
  std::vector<Range> out;
  for (const Range& r : ranges) {
    if (hole.second <= r.first || hole.first >= r.second) {
      out.push_back(r);
      continue;
    }
    if (r.first < hole.first) out.push_back({r.first, hole.first});
    if (hole.second < r.second) out.push_back({hole.second, r.second});
  }
  return out;
}

template <class T>
Range of(const T& object) {
  const auto begin = reinterpret_cast<uintptr_t>(&object);
  return {begin, begin + sizeof object};
}

std::vector<Range> compute() {
  Found found;
  found.segments = data_is_watched();
  dl_iterate_phdr(add_module, &found);
  std::vector<Range> holes = found.relro;
  holes.push_back(watched_range());  // the student's own data
  for (const Range& builtin : {of(threadIdx), of(blockIdx), of(blockDim), of(gridDim)})
    holes.push_back(builtin);
  std::vector<Range> ranges = found.ranges;
  for (const Range& hole : holes) ranges = cut(ranges, hole);
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}
}  // namespace

size_t own_memory_now(Range* out, size_t max) {
  const std::vector<Range> ranges = compute();
  const size_t n = std::min(ranges.size(), max);
  std::copy_n(ranges.begin(), n, out);
  return n;
}

}  // namespace emu::detail
