// The calls g++ makes for every load and store of code compiled with
//   -fsanitize=kernel-address --param asan-instrumentation-with-call-threshold=0
// (every CPU-backend build labgrade grades, but ThreadSanitizer's): each access becomes a call of
// __asan_{load,store}{1,2,4,8,16}_noabort(address) or __asan_{load,store}N_noabort(address, size).
// Kernel AddressSanitizer leaves these to its host (normally the Linux kernel), so no sanitizer
// runtime is linked: the emulator answers them, counting instead of checking, in a counting run
// (LABKIT_EMU_COUNT_ACCESSES) and returning at once in any other. They live in their own object,
// which a static link pulls in only for an instrumented submission.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "access_counter.h"

// Every graded run of the CPU backend runs this code too (labgrade counts in its graded build
// itself), so the test for a counted block comes first, here, before any call.
#define EMU_NOTE_ACCESS(address, size, store)                     \
  if (__builtin_expect(emu::detail::counted_block != nullptr, 0)) \
  emu::detail::note_access(address, size, store,                  \
                           reinterpret_cast<uintptr_t>(__builtin_return_address(0)))

#define EMU_ACCESS_HOOKS(size)                                      \
  extern "C" void __asan_load##size##_noabort(uintptr_t address) {  \
    EMU_NOTE_ACCESS(address, size, /*store=*/false);                \
  }                                                                 \
  extern "C" void __asan_store##size##_noabort(uintptr_t address) { \
    EMU_NOTE_ACCESS(address, size, /*store=*/true);                 \
  }

EMU_ACCESS_HOOKS(1)
EMU_ACCESS_HOOKS(2)
EMU_ACCESS_HOOKS(4)
EMU_ACCESS_HOOKS(8)
EMU_ACCESS_HOOKS(16)

extern "C" void __asan_loadN_noabort(uintptr_t address, size_t size) {
  EMU_NOTE_ACCESS(address, size, /*store=*/false);
}
extern "C" void __asan_storeN_noabort(uintptr_t address, size_t size) {
  EMU_NOTE_ACCESS(address, size, /*store=*/true);
}

// The sanitizer's other entry points g++ calls: before a noreturn call or a throw (to unpoison the
// stack), and around the dynamic initialisation of a file's globals. Nothing is poisoned here, so
// there is nothing to do.
extern "C" void __asan_handle_no_return() {}
extern "C" void __asan_before_dynamic_init(const char*) {}
extern "C" void __asan_after_dynamic_init() {}

// memcpy, memmove and memset as a student's object calls them (labgrade renames its references:
// grader/build/device_call_guard.h). The C library's own run uninstrumented, so a kernel's copy of
// a size the compiler cannot see would move device memory uncounted: these count the bytes read
// and written, one access each, then do the work with the library's function.
extern "C" {
void* __memcpy_chk(void* dst, const void* src, size_t n, size_t dst_size);
void* __memmove_chk(void* dst, const void* src, size_t n, size_t dst_size);
void* __memset_chk(void* dst, int value, size_t n, size_t dst_size);
}

namespace {
void note_copy(void* dst, const void* src, size_t n) {
  if (n == 0) return;
  EMU_NOTE_ACCESS(reinterpret_cast<uintptr_t>(src), n, /*store=*/false);
  EMU_NOTE_ACCESS(reinterpret_cast<uintptr_t>(dst), n, /*store=*/true);
}
void note_fill(void* dst, size_t n) {
  if (n == 0) return;
  EMU_NOTE_ACCESS(reinterpret_cast<uintptr_t>(dst), n, /*store=*/true);
}
}  // namespace

extern "C" void __emu_device_atomic_read(const volatile void* address, size_t n) {
  EMU_NOTE_ACCESS(reinterpret_cast<uintptr_t>(address), n, /*store=*/false);
}

extern "C" void* __emu_device_memcpy(void* dst, const void* src, size_t n) {
  note_copy(dst, src, n);
  return memcpy(dst, src, n);
}
extern "C" void* __emu_device_memmove(void* dst, const void* src, size_t n) {
  note_copy(dst, src, n);
  return memmove(dst, src, n);
}
extern "C" void* __emu_device_memset(void* dst, int value, size_t n) {
  note_fill(dst, n);
  return memset(dst, value, n);
}
extern "C" void* __emu_device___memcpy_chk(void* dst, const void* src, size_t n, size_t size) {
  note_copy(dst, src, n);
  return __memcpy_chk(dst, src, n, size);
}
extern "C" void* __emu_device___memmove_chk(void* dst, const void* src, size_t n, size_t size) {
  note_copy(dst, src, n);
  return __memmove_chk(dst, src, n, size);
}
extern "C" void* __emu_device___memset_chk(void* dst, int value, size_t n, size_t size) {
  note_fill(dst, n);
  return __memset_chk(dst, value, n, size);
}
