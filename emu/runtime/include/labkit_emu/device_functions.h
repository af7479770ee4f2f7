// Device-side builtins: the thread/block coordinates, barriers, and the math and misc intrinsics
// that lab kernels use, as plain host functions.
#pragma once
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cstdint>
#include <type_traits>

#include "labkit_emu/vector_types.h"

// The coordinates of the CUDA thread running now. They are real thread-local variables (not
// macros): the scheduler stores the next thread's coordinates before switching to its fiber, and
// since a block's fibers never leave their OS thread, reading them is one TLS load.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;

namespace emu::detail {
enum class BarrierOp { plain, count, all, any };
// Blocks the calling CUDA thread until every thread of its block reaches a barrier; returns the
// count/and/or of the predicates for the __syncthreads_* variants.
int barrier_block(const char* file, int line, BarrierOp op, int predicate);
// __syncwarp: the same for the lanes of the caller's warp that `mask` names (those that have not
// returned).
void barrier_warp(const char* file, int line, unsigned mask = 0xffffffffu);
void thread_fence();

// Warp shuffles: every live lane of the warp publishes a value (up to 8 bytes) and waits at a warp
// barrier; `slots` then holds the warp's values and `lanes` the lanes that took part.
struct WarpView {
  const uint64_t* slots;
  unsigned lane;
  uint32_t lanes;
};
WarpView warp_exchange(uint64_t value, unsigned mask = 0xffffffffu);
void warp_exchange_done(unsigned mask = 0xffffffffu);
// Lane `lane`'s value in the calling warp's last exchange (0 to 31). Read by the runtime, not by
// code compiled with the submission: a shuffle moves registers, and in a counting run the slots'
// memory would otherwise count as global memory read (it is the emulator's, on the host), which a
// GPU's shuffle is not. It reads only the warp's own slots, whatever the caller passes.
uint64_t warp_value(int lane);

// Reads lane source_of(lane)'s value; a lane outside the warp or not taking part gives the
// caller's own value, as CUDA specifies for out-of-range sources.
template <class T, class SourceOf>
static inline T shuffle(T value, SourceOf source_of, unsigned mask) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move up to 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));
  const WarpView view = warp_exchange(bits, mask);
  const int source = source_of(static_cast<int>(view.lane));
  T result = value;
  if (source >= 0 && source < 32 && (view.lanes >> source & 1u)) {
    const uint64_t got = warp_value(source);
    memcpy(&result, &got, sizeof(T));
  }
  warp_exchange_done(mask);
  return result;
}

// The lanes of `mask` whose predicate is non-zero; *lanes receives the lanes that took part.
static inline unsigned warp_ballot(int predicate, unsigned mask, unsigned* lanes = nullptr) {
  const WarpView view = warp_exchange(predicate != 0, mask);
  const unsigned taking_part = view.lanes & mask;
  unsigned bits = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if ((taking_part >> lane & 1u) && warp_value(lane) != 0) bits |= 1u << lane;
  }
  if (lanes != nullptr) *lanes = taking_part;
  warp_exchange_done(mask);
  return bits;
}

// The lanes of the caller's warp that have not returned (no barrier: __activemask is not one).
unsigned live_lanes();
}  // namespace emu::detail

// Warp-level primitives. The lanes `mask` names (those that have not returned) take part, and
// wait for each other; `width` splits the warp into sections of that many lanes, as in CUDA.
template <class T>
static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return ::emu::detail::shuffle(
      var, [&](int lane) { return (lane / width) * width + ((src_lane % width) + width) % width; },
      mask);
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::emu::detail::shuffle(
      var,
      [&](int lane) {
        return lane % width >= static_cast<int>(delta) ? lane - static_cast<int>(delta) : lane;
      },
      mask);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::emu::detail::shuffle(
      var,
      [&](int lane) {
        return lane % width + static_cast<int>(delta) < width ? lane + static_cast<int>(delta)
                                                              : lane;
      },
      mask);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return ::emu::detail::shuffle(
      var,
      [&](int lane) {
        const int source = lane ^ lane_mask;
        return source / width == lane / width ? source : lane;
      },
      mask);
}
static inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::emu::detail::warp_ballot(predicate, mask);
}
static inline int __any_sync(unsigned mask, int predicate) {
  return ::emu::detail::warp_ballot(predicate, mask) != 0;
}
static inline int __all_sync(unsigned mask, int predicate) {
  unsigned lanes = 0;
  return ::emu::detail::warp_ballot(predicate, mask, &lanes) == lanes;
}
static inline unsigned __activemask() { return ::emu::detail::live_lanes(); }

// Macros so that a barrier knows its source line: divergence reports name it.
#define __syncthreads() \
  ((void)::emu::detail::barrier_block(__FILE__, __LINE__, ::emu::detail::BarrierOp::plain, 0))
#define __syncthreads_count(pred) \
  ::emu::detail::barrier_block(__FILE__, __LINE__, ::emu::detail::BarrierOp::count, (pred) ? 1 : 0)
#define __syncthreads_and(pred) \
  ::emu::detail::barrier_block(__FILE__, __LINE__, ::emu::detail::BarrierOp::all, (pred) ? 1 : 0)
#define __syncthreads_or(pred) \
  ::emu::detail::barrier_block(__FILE__, __LINE__, ::emu::detail::BarrierOp::any, (pred) ? 1 : 0)
// The lanes the mask names (all of them where none is given) wait for each other. The mask is
// the argument of a call the macro leaves in place: __syncwarp() and __syncwarp(m) alike, without
// the comma-eliding extension ISO mode lacks.
namespace emu::detail {
static inline auto barrier_warp_at(const char* file, int line) {
  return [file, line](unsigned mask = 0xffffffffu) { barrier_warp(file, line, mask); };
}
}  // namespace emu::detail
#define __syncwarp ::emu::detail::barrier_warp_at(__FILE__, __LINE__)

static inline void __threadfence() { ::emu::detail::thread_fence(); }
static inline void __threadfence_block() { ::emu::detail::thread_fence(); }
static inline void __threadfence_system() { ::emu::detail::thread_fence(); }

// CUDA's min/max accept mixed argument types (int with unsigned, float with double, ...) and
// return their common type; std::min would refuse them. Constrained to arithmetic types so that
// std::min/max on anything else are untouched; for equal types std::min is chosen when both are
// visible (it is more specialised) and returns the same value.
template <class A, class B,
          std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>, int> = 0>
static inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  return static_cast<C>(b) < static_cast<C>(a) ? static_cast<C>(b) : static_cast<C>(a);
}
template <class A, class B,
          std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>, int> = 0>
static inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}

// Intrinsics: the CPU computes them exactly (IEEE), which is within CUDA's documented error.
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float rsqrtf(float a) { return 1.0f / sqrtf(a); }
static inline double rsqrt(double a) { return 1.0 / sqrt(a); }
// glibc's <math.h> already declares these five (extern "C", never exported by libm), so they
// cannot be static like the rest; these inline definitions complete glibc's declarations.
inline float __expf(float a) { return expf(a); }
inline float __logf(float a) { return logf(a); }
inline float __sinf(float a) { return sinf(a); }
inline float __cosf(float a) { return cosf(a); }
inline float __powf(float a, float b) { return powf(a, b); }
static inline float __saturatef(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a); }
static inline int __float2int_rn(float a) { return static_cast<int>(nearbyintf(a)); }
static inline int __float2int_rz(float a) { return static_cast<int>(a); }
static inline float __int2float_rn(int a) { return static_cast<float>(a); }
static inline int __float_as_int(float a) {
  int r;
  memcpy(&r, &a, sizeof r);
  return r;
}
static inline float __int_as_float(int a) {
  float r;
  memcpy(&r, &a, sizeof r);
  return r;
}
static inline unsigned int __float_as_uint(float a) {
  return static_cast<unsigned>(__float_as_int(a));
}
static inline float __uint_as_float(unsigned int a) { return __int_as_float(static_cast<int>(a)); }
static inline long long __double_as_longlong(double a) {
  long long r;
  memcpy(&r, &a, sizeof r);
  return r;
}
static inline double __longlong_as_double(long long a) {
  double r;
  memcpy(&r, &a, sizeof r);
  return r;
}
static inline int __double2hiint(double a) {
  return static_cast<int>(__double_as_longlong(a) >> 32);
}
static inline int __double2loint(double a) {
  return static_cast<int>(static_cast<unsigned>(__double_as_longlong(a)));
}
static inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>(static_cast<unsigned long long>(hi) << 32 |
                                                     static_cast<unsigned>(lo)));
}
static inline int __popc(unsigned int a) { return __builtin_popcount(a); }
static inline int __popcll(unsigned long long a) { return __builtin_popcountll(a); }
static inline int __clz(int a) { return a == 0 ? 32 : __builtin_clz(static_cast<unsigned>(a)); }
static inline int __ffs(int a) { return __builtin_ffs(a); }
static inline unsigned int __brev(unsigned int a) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
  return r;
}
static inline int __mul24(int a, int b) { return a * b; }
static inline unsigned int __umul24(unsigned int a, unsigned int b) { return a * b; }

// __ldg only routes the load through the read-only cache on the GPU.
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}

// clock64(): a cycle-like counter for kernels that time themselves. In kernel code it counts its
// own calls, not time: a kernel must not be able to tell a slower run (the one that counts its
// memory accesses) from the others. clock() in a kernel is the same clock (labgrade sends the
// student's calls to __emu_device_clock, grader/build/device_call_guard.h).
long long clock64();
