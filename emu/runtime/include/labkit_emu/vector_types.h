// dim3, uint3 and the short vector types (float4, int2, ...) with CUDA's sizes and alignments, plus
// their make_* helpers.
#pragma once
#include <cstddef>

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// One macro per arity so that every type gets the same members, alignment and make_ function.
#define LABKIT_EMU_VEC1(T, name, align)         \
  struct __attribute__((aligned(align))) name { \
    T x;                                        \
  };                                            \
  static inline name make_##name(T x) { return name{x}; }
#define LABKIT_EMU_VEC2(T, name, align)         \
  struct __attribute__((aligned(align))) name { \
    T x, y;                                     \
  };                                            \
  static inline name make_##name(T x, T y) { return name{x, y}; }
#define LABKIT_EMU_VEC3(T, name, align) \
  struct name {                         \
    T x, y, z;                          \
  };                                    \
  static inline name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define LABKIT_EMU_VEC4(T, name, align)         \
  struct __attribute__((aligned(align))) name { \
    T x, y, z, w;                               \
  };                                            \
  static inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
#define LABKIT_EMU_VEC_FAMILY(T, base, a1, a2, a4) \
  LABKIT_EMU_VEC1(T, base##1, a1)                  \
  LABKIT_EMU_VEC2(T, base##2, a2)                  \
  LABKIT_EMU_VEC3(T, base##3, a1)                  \
  LABKIT_EMU_VEC4(T, base##4, a4)

LABKIT_EMU_VEC_FAMILY(float, float, 4, 8, 16)
LABKIT_EMU_VEC_FAMILY(int, int, 4, 8, 16)
LABKIT_EMU_VEC_FAMILY(signed char, char, 1, 2, 4)
LABKIT_EMU_VEC_FAMILY(unsigned char, uchar, 1, 2, 4)
LABKIT_EMU_VEC_FAMILY(short, short, 2, 4, 8)
LABKIT_EMU_VEC_FAMILY(unsigned short, ushort, 2, 4, 8)
LABKIT_EMU_VEC_FAMILY(long long, longlong, 8, 16, 16)
LABKIT_EMU_VEC_FAMILY(unsigned long long, ulonglong, 8, 16, 16)
LABKIT_EMU_VEC_FAMILY(double, double, 8, 16, 16)
LABKIT_EMU_VEC1(unsigned int, uint1, 4)
LABKIT_EMU_VEC2(unsigned int, uint2, 8)
LABKIT_EMU_VEC4(unsigned int, uint4, 16)
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  return uint3{x, y, z};
}

#undef LABKIT_EMU_VEC_FAMILY
#undef LABKIT_EMU_VEC1
#undef LABKIT_EMU_VEC2
#undef LABKIT_EMU_VEC3
#undef LABKIT_EMU_VEC4
