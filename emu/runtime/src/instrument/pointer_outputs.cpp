// Library functions a kernel may call that store through a pointer it hands them: frexp, modf,
// remquo and sincos (each float, double and long double), and printf's %n. The library is not
// instrumented, so such a store went past the count and past the check of the emulator's own
// memory: frexpf(x, p), with x chosen, wrote a chosen byte anywhere, and a kernel rewrote its
// block's counts that way (red-team case r3_libm_pointer_output_rewrites_block_counts). A
// student's object calls these versions instead (labgrade renames its references:
// grader/build/device_call_guard.h, kEmulated): each store is reported as the kernel's own, then
// the library does the work. In host code (no counted block) the report does nothing.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "access_counter.h"

extern "C" {
// The execution layer's (scheduler.h, faults.h), above this one: declared here.
extern __thread unsigned char __emu_kernel_running;
[[noreturn]] void __emu_host_call_in_kernel(const char* function, uintptr_t return_address);
int __printf_chk(int flag, const char* format, ...);
int __fprintf_chk(FILE* stream, int flag, const char* format, ...);
int __vprintf_chk(int flag, const char* format, va_list args);
int __vfprintf_chk(FILE* stream, int flag, const char* format, va_list args);
}

// The place of the call in the student's code: each wrapper's own return address, taken in the
// wrapper (not in a helper, whose return address would be the wrapper's, or the student's only
// where the compiler inlined it).
#define EMU_CALLER reinterpret_cast<uintptr_t>(__builtin_return_address(0))

namespace {
template <class T>
void note_store(T* p, uintptr_t caller) {
  if (emu::detail::counted_block != nullptr)
    emu::detail::note_access(reinterpret_cast<uintptr_t>(p), sizeof(T), /*store=*/true, caller);
}
}  // namespace

#define EMU_POINTER_OUTPUT_MATHS(T, suffix)                      \
  extern "C" T __emu_device_frexp##suffix(T x, int* e) {         \
    note_store(e, EMU_CALLER);                                   \
    return frexp##suffix(x, e);                                  \
  }                                                              \
  extern "C" T __emu_device_modf##suffix(T x, T* whole) {        \
    note_store(whole, EMU_CALLER);                               \
    return modf##suffix(x, whole);                               \
  }                                                              \
  extern "C" T __emu_device_remquo##suffix(T x, T y, int* q) {   \
    note_store(q, EMU_CALLER);                                   \
    return remquo##suffix(x, y, q);                              \
  }                                                              \
  extern "C" void __emu_device_sincos##suffix(T x, T* s, T* c) { \
    note_store(s, EMU_CALLER);                                   \
    note_store(c, EMU_CALLER);                                   \
    sincos##suffix(x, s, c);                                     \
  }

EMU_POINTER_OUTPUT_MATHS(float, f)
EMU_POINTER_OUTPUT_MATHS(double, )
EMU_POINTER_OUTPUT_MATHS(long double, l)

namespace {
// Whether a conversion of `format` is %n (which stores the count printed so far through its
// argument): a kernel's printf with one ends the run as a call only host code may make would.
bool stores_a_count(const char* format) {
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p != '%') continue;
    ++p;
    while (*p != '\0' && std::strchr("-+ #0123456789.*'hlLqjzt$", *p) != nullptr) ++p;
    if (*p == 'n') return true;
    if (*p == '\0') break;
  }
  return false;
}

void refuse_count_store_in_kernel(const char* format, uintptr_t caller) {
  if (__emu_kernel_running != 0 && stores_a_count(format))
    __emu_host_call_in_kernel("printf with %n", caller);
}
}  // namespace

extern "C" int __emu_device_printf(const char* format, ...) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  va_list args;
  va_start(args, format);
  const int n = std::vprintf(format, args);
  va_end(args);
  return n;
}
extern "C" int __emu_device_fprintf(FILE* stream, const char* format, ...) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  va_list args;
  va_start(args, format);
  const int n = std::vfprintf(stream, format, args);
  va_end(args);
  return n;
}
extern "C" int __emu_device_vprintf(const char* format, va_list args) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  return std::vprintf(format, args);
}
extern "C" int __emu_device_vfprintf(FILE* stream, const char* format, va_list args) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  return std::vfprintf(stream, format, args);
}
extern "C" int __emu_device___printf_chk(int flag, const char* format, ...) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  va_list args;
  va_start(args, format);
  const int n = __vprintf_chk(flag, format, args);
  va_end(args);
  return n;
}
extern "C" int __emu_device___fprintf_chk(FILE* stream, int flag, const char* format, ...) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  va_list args;
  va_start(args, format);
  const int n = __vfprintf_chk(stream, flag, format, args);
  va_end(args);
  return n;
}
extern "C" int __emu_device___vprintf_chk(int flag, const char* format, va_list args) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  return __vprintf_chk(flag, format, args);
}
extern "C" int __emu_device___vfprintf_chk(FILE* stream, int flag, const char* format,
                                           va_list args) {
  refuse_count_store_in_kernel(format, EMU_CALLER);
  return __vfprintf_chk(stream, flag, format, args);
}
