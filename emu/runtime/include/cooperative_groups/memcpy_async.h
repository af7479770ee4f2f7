// The CPU backend's cooperative_groups::memcpy_async and wait (CUDA 11's
// <cooperative_groups/memcpy_async.h>), for the thread block. Without this header g++ found
// CUDA's own, which needs libcu++, and a correct kernel did not compile.
//
// Every thread of the group calls memcpy_async with the same arguments, as in CUDA. Here the
// threads share the copy out by rank, word by word (4 bytes, the way a GPU's threads copy it),
// so that each word's read and write are one thread's: counted as a load and a store each, as a
// staged kernel's own copy would be, and seen by the record of shared memory like any store. As
// on a GPU, no thread may read the destination before wait(), the group's barrier.
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

// `bytes` from `src` to `dst`; `Size` is a byte count (size_t, or an integral type).
template <class Group, class Element, class Size>
inline void memcpy_async(const Group& group, Element* dst, const Element* src, const Size& bytes) {
  const unsigned long long total = static_cast<unsigned long long>(bytes);
  const unsigned long long threads = group.size(), rank = group.thread_rank();
  constexpr unsigned long long kWord = 4;
  for (unsigned long long at = rank * kWord; at < total; at += threads * kWord)
    __builtin_memcpy(reinterpret_cast<char*>(dst) + at, reinterpret_cast<const char*>(src) + at,
                     total - at < kWord ? total - at : kWord);
}

// Every copy the group asked for is done and visible to all its threads.
template <class Group>
inline void wait(const Group& group, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  group.sync(file, line);
}

// All but the last `Stages` copies are done: here every copy is done at once, so the same barrier.
template <unsigned Stages, class Group>
inline void wait_prior(const Group& group, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  group.sync(file, line);
}

}  // namespace cooperative_groups
