// The storage behind each __shared__ array (labkit_emu/launch.h, block_shared): one allocation
// per array and OS thread, since an OS thread runs one block at a time, poisoned when a new block
// first asks for it. The storage lies in the runtime's heap, never in the lab object's own data,
// which a counted launch keeps unreadable (watched_data.h).
#include <cstdlib>
#include <unordered_map>

#include "labkit_emu/launch.h"
#include "race_annotations.h"

namespace emu::detail {
namespace {
struct Storage {
  void* bytes = nullptr;
  uint64_t generation = 0;
};
}  // namespace

void* static_shared(const void* key, size_t size, size_t alignment) {
  // Never freed: an OS thread keeps its arrays for the next launch of the same kernels.
  static thread_local auto* arrays = new std::unordered_map<const void*, Storage>();
  Storage& s = (*arrays)[key];
  if (s.bytes == nullptr) {
    s.bytes = allocate_shared_storage(size, alignment > 16 ? alignment : 16);
    if (s.bytes == nullptr) std::abort();
  }
  if (s.generation != block_generation) {
    poison_shared(s.bytes, size);
    s.generation = block_generation;
  }
  return s.bytes;
}
}  // namespace emu::detail
