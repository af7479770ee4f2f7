// CUDA's atomic functions. Each is one call of the runtime's __emu_device_atomic, which does the
// read-modify-write itself (a real CPU atomic: blocks run in parallel on several OS threads) and,
// in a counted run, counts its read and its write and tells the record of shared memory that both
// were atomic (shared_races.h: two atomic accesses are no race). A kernel that calls the entry
// directly only makes one more atomic access of one word: the record cannot be told that a plain
// access is atomic.
// The value parameter is non-deduced (as with CUDA's non-template overloads, atomicAdd(&u, 1)
// converts 1 to unsigned).
#pragma once
#include <type_traits>

// The operations, for `op` below.
enum : int {
  __emu_atomic_add = 0,    // integer add
  __emu_atomic_add_float,  // floating-point add (float or double by size)
  __emu_atomic_exchange,
  __emu_atomic_cas,  // compare and swap: `compare` is the expected value
  __emu_atomic_and,
  __emu_atomic_or,
  __emu_atomic_xor,
  __emu_atomic_min_signed,
  __emu_atomic_min_unsigned,
  __emu_atomic_min_float,
  __emu_atomic_max_signed,
  __emu_atomic_max_unsigned,
  __emu_atomic_max_float,
  __emu_atomic_inc,  // CUDA's wrap-around counters (unsigned int)
  __emu_atomic_dec,
};
// The word of `bytes` (4 or 8) at `address`, changed by `op` with `operand`; returns the old
// value's bits.
extern "C" unsigned long long __emu_device_atomic(void* address, __SIZE_TYPE__ bytes, int op,
                                                  unsigned long long operand,
                                                  unsigned long long compare);

namespace emu::detail {
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

template <class T>
static inline unsigned long long atomic_bits(T value) {
  unsigned long long bits = 0;
  __builtin_memcpy(&bits, &value, sizeof(T));
  return bits;
}
template <class T>
static inline T atomic_value(unsigned long long bits) {
  T value;
  __builtin_memcpy(&value, &bits, sizeof(T));
  return value;
}
// `op` on the word at `address`; the old value.
template <class T>
static inline T atomic_op(T* address, int op, T operand, T compare = T()) {
  return atomic_value<T>(
      __emu_device_atomic(address, sizeof(T), op, atomic_bits(operand), atomic_bits(compare)));
}
template <class T>
static inline int ordered(int signed_op, int unsigned_op, int float_op) {
  return std::is_floating_point_v<T> ? float_op : std::is_signed_v<T> ? signed_op : unsigned_op;
}
}  // namespace emu::detail

template <class T>
static inline emu::detail::if_word<T> atomicAdd(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(
      address, std::is_integral_v<T> ? __emu_atomic_add : __emu_atomic_add_float, val);
}
template <class T>
static inline emu::detail::if_word<T> atomicSub(T* address, emu::detail::value_t<T> val) {
  return atomicAdd(address, static_cast<T>(-val));
}
template <class T>
static inline emu::detail::if_word<T> atomicExch(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(address, __emu_atomic_exchange, val);
}
template <class T>
static inline emu::detail::if_word<T> atomicMin(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(
      address,
      emu::detail::ordered<T>(__emu_atomic_min_signed, __emu_atomic_min_unsigned,
                              __emu_atomic_min_float),
      val);
}
template <class T>
static inline emu::detail::if_word<T> atomicMax(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(
      address,
      emu::detail::ordered<T>(__emu_atomic_max_signed, __emu_atomic_max_unsigned,
                              __emu_atomic_max_float),
      val);
}
template <class T>
static inline emu::detail::if_word<T> atomicCAS(T* address, emu::detail::value_t<T> compare,
                                                emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(address, __emu_atomic_cas, val, compare);
}
template <class T>
static inline emu::detail::if_int_word<T> atomicAnd(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(address, __emu_atomic_and, val);
}
template <class T>
static inline emu::detail::if_int_word<T> atomicOr(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(address, __emu_atomic_or, val);
}
template <class T>
static inline emu::detail::if_int_word<T> atomicXor(T* address, emu::detail::value_t<T> val) {
  return emu::detail::atomic_op<T>(address, __emu_atomic_xor, val);
}
// CUDA's wrap-around counters: inc resets to 0 past val, dec reloads val at 0 or above val.
static inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  return emu::detail::atomic_op<unsigned>(address, __emu_atomic_inc, val);
}
static inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  return emu::detail::atomic_op<unsigned>(address, __emu_atomic_dec, val);
}

// The scoped forms (compute capability 6.0 on): one device, one CPU backend, so the block's and
// the system's scope are the device's.
#define EMU_SCOPED_ATOMIC(name)                                             \
  template <class... Args>                                                  \
  static inline auto name##_block(Args... args)->decltype(name(args...)) {  \
    return name(args...);                                                   \
  }                                                                         \
  template <class... Args>                                                  \
  static inline auto name##_system(Args... args)->decltype(name(args...)) { \
    return name(args...);                                                   \
  }
EMU_SCOPED_ATOMIC(atomicAdd)
EMU_SCOPED_ATOMIC(atomicSub)
EMU_SCOPED_ATOMIC(atomicExch)
EMU_SCOPED_ATOMIC(atomicMin)
EMU_SCOPED_ATOMIC(atomicMax)
EMU_SCOPED_ATOMIC(atomicCAS)
EMU_SCOPED_ATOMIC(atomicAnd)
EMU_SCOPED_ATOMIC(atomicOr)
EMU_SCOPED_ATOMIC(atomicXor)
EMU_SCOPED_ATOMIC(atomicInc)
EMU_SCOPED_ATOMIC(atomicDec)
#undef EMU_SCOPED_ATOMIC
