// CUDA's atomic functions (labkit_emu/atomics.h) do their work here, outside the lab object: a
// real CPU atomic on the word, and in a counted run a read and a write counted and put in the
// record of shared memory as atomic accesses (shared_races.h). Done here rather than by builtins
// in the lab object, so that nothing a kernel can call marks its own plain accesses atomic
// (red-team case r32_atomic_bracket_opened_over_all_memory).
#include <cstddef>
#include <cstdint>

#include "access_counter.h"
#include "labkit_emu/atomics.h"

namespace emu::detail {
__thread uintptr_t atomic_caller = 0;
}  // namespace emu::detail

namespace {

template <class U, class F>
U update(U* word, F next) {
  U old = __atomic_load_n(word, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(word, &old, next(old), true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}

template <class T, class U>
T as(U bits) {
  T value;
  __builtin_memcpy(&value, &bits, sizeof(T));
  return value;
}

template <class T, class U>
U bits_of(T value) {
  U bits;
  __builtin_memcpy(&bits, &value, sizeof(U));
  return bits;
}

// `op` on the word of U (uint32_t or uint64_t); S and F are its signed and floating types.
template <class U, class S, class F>
U apply(U* word, int op, U operand, U compare) {
  constexpr auto relaxed = __ATOMIC_RELAXED;
  switch (op) {
    case __emu_atomic_add:
      return __atomic_fetch_add(word, operand, relaxed);
    case __emu_atomic_add_float:
      return update(word, [&](U old) { return bits_of<F, U>(as<F>(old) + as<F>(operand)); });
    case __emu_atomic_exchange:
      return __atomic_exchange_n(word, operand, relaxed);
    case __emu_atomic_cas:
      __atomic_compare_exchange_n(word, &compare, operand, false, relaxed, relaxed);
      return compare;  // the old value, whether or not it matched
    case __emu_atomic_and:
      return __atomic_fetch_and(word, operand, relaxed);
    case __emu_atomic_or:
      return __atomic_fetch_or(word, operand, relaxed);
    case __emu_atomic_xor:
      return __atomic_fetch_xor(word, operand, relaxed);
    case __emu_atomic_min_signed:
      return update(word, [&](U old) { return as<S>(operand) < as<S>(old) ? operand : old; });
    case __emu_atomic_min_unsigned:
      return update(word, [&](U old) { return operand < old ? operand : old; });
    case __emu_atomic_min_float:
      return update(word, [&](U old) { return as<F>(operand) < as<F>(old) ? operand : old; });
    case __emu_atomic_max_signed:
      return update(word, [&](U old) { return as<S>(old) < as<S>(operand) ? operand : old; });
    case __emu_atomic_max_unsigned:
      return update(word, [&](U old) { return old < operand ? operand : old; });
    case __emu_atomic_max_float:
      return update(word, [&](U old) { return as<F>(old) < as<F>(operand) ? operand : old; });
    case __emu_atomic_inc:
      return update(word, [&](U old) { return old >= operand ? U{0} : U(old + 1); });
    case __emu_atomic_dec:
      return update(word,
                    [&](U old) { return (old == 0 || old > operand) ? operand : U(old - 1); });
    default:
      __builtin_trap();  // the header passes only the operations above
  }
}

}  // namespace

extern "C" unsigned long long __emu_device_atomic(void* address, size_t bytes, int op,
                                                  unsigned long long operand,
                                                  unsigned long long compare) {
  const auto caller = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  const auto at = reinterpret_cast<uintptr_t>(address);
  // The width the operation works on, whatever the caller said: the record is told what is done
  // (a kernel calling the entry with 0 bytes hid its stores:
  // r33_atomic_entry_called_with_zero_bytes).
  const size_t width = bytes == 8 ? 8 : 4;
  if (__builtin_expect(emu::detail::counted_block != nullptr, 0))
    emu::detail::note_atomic_access(at, width, caller);
  // A fault on the word is the kernel's, at its call (faults.cpp reads this).
  emu::detail::atomic_caller = caller;
  unsigned long long old;
  if (width == 8) {
    old = apply<uint64_t, int64_t, double>(static_cast<uint64_t*>(address), op, operand, compare);
  } else {
    old = apply<uint32_t, int32_t, float>(static_cast<uint32_t*>(address), op,
                                          static_cast<uint32_t>(operand),
                                          static_cast<uint32_t>(compare));
  }
  emu::detail::atomic_caller = 0;
  return old;
}
