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

#include "access_counter.h"

// Every graded run of the CPU backend runs this code too (labgrade counts in its graded build
// itself), so the test for a counted block comes first, here, before any call.
#define EMU_NOTE_ACCESS(address, size, store)                     \
  if (__builtin_expect(emu::detail::counted_block != nullptr, 0)) \
  emu::detail::note_access(address, size, store)

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
