// CUDA's atomic functions as real CPU atomics: blocks run in parallel on several OS threads.
// The value parameter is non-deduced (as with CUDA's non-template overloads, atomicAdd(&u, 1)
// converts 1 to unsigned).
#pragma once
#include <type_traits>

// Each atomic function's work on its word is bracketed, so that a counted run's record of shared
// memory (emu/runtime's shared_races.h) takes those accesses as atomic ones, which race with no
// other atomic access.
extern "C" void __emu_device_atomic_begin(const volatile void* address, __SIZE_TYPE__ bytes);
extern "C" void __emu_device_atomic_end();

namespace emu::detail {
// `op()` as an atomic access of the word at `address`.
template <class T, class Op>
static inline T atomic_site(T* address, Op op) {
  __emu_device_atomic_begin(address, sizeof(T));
  const T old = op();
  __emu_device_atomic_end();
  return old;
}

template <class T>
struct same {
  using type = T;
};
template <class T>
using value_t = typename same<T>::type;

template <class T>
constexpr bool atomic_word = std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
using if_word = std::enable_if_t<atomic_word<T>, T>;
template <class T>
using if_int_word = std::enable_if_t<atomic_word<T> && std::is_integral_v<T>, T>;

// Read-modify-write through compare-and-swap, for the operations without a native instruction
// (floating-point add, min, max, inc, dec). Returns the old value, as CUDA does.
template <class T, class F>
static inline T atomic_update(T* address, F next) {
  return atomic_site(address, [&] {
    T old;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    T desired;
    do {
      desired = next(old);
    } while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
    return old;
  });
}
}  // namespace emu::detail

template <class T>
static inline emu::detail::if_word<T> atomicAdd(T* address, emu::detail::value_t<T> val) {
  if constexpr (std::is_integral_v<T>) {
    return emu::detail::atomic_site(
        address, [&] { return __atomic_fetch_add(address, val, __ATOMIC_RELAXED); });
  } else {
    return emu::detail::atomic_update(address, [val](T old) { return old + val; });
  }
}
template <class T>
static inline emu::detail::if_word<T> atomicSub(T* address, emu::detail::value_t<T> val) {
  return atomicAdd(address, static_cast<T>(-val));
}
template <class T>
static inline emu::detail::if_word<T> atomicExch(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_site(address, [&] {
    T old;
    __atomic_exchange(address, &val, &old, __ATOMIC_RELAXED);
    return old;
  });
}
template <class T>
static inline emu::detail::if_word<T> atomicMin(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_update(address, [val](T old) { return val < old ? val : old; });
}
template <class T>
static inline emu::detail::if_word<T> atomicMax(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_update(address, [val](T old) { return old < val ? val : old; });
}
template <class T>
static inline emu::detail::if_word<T> atomicCAS(T* address, emu::detail::value_t<T> compare,
                                                emu::detail::value_t<T> val) {
  return emu::detail::atomic_site(address, [&] {
    __atomic_compare_exchange(address, &compare, &val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;  // on failure the builtin stored the current value here
  });
}
template <class T>
static inline emu::detail::if_int_word<T> atomicAnd(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_site(
      address, [&] { return __atomic_fetch_and(address, val, __ATOMIC_RELAXED); });
}
template <class T>
static inline emu::detail::if_int_word<T> atomicOr(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_site(
      address, [&] { return __atomic_fetch_or(address, val, __ATOMIC_RELAXED); });
}
template <class T>
static inline emu::detail::if_int_word<T> atomicXor(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_site(
      address, [&] { return __atomic_fetch_xor(address, val, __ATOMIC_RELAXED); });
}
// CUDA's wrap-around counters: inc resets to 0 past val, dec reloads val at 0 or above val.
static inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  return emu::detail::atomic_update(address,
                                    [val](unsigned old) { return old >= val ? 0u : old + 1; });
}
static inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  return emu::detail::atomic_update(
      address, [val](unsigned old) { return (old == 0 || old > val) ? val : old - 1; });
}
