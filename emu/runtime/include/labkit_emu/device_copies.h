// The C library's memcpy, memmove and memset, counting the bytes they move in a counted run
// (emu/runtime/src/instrument/access_hooks.cpp). A counted compile sends the student's calls here:
// __builtin_memcpy and kin by the rewrite (emu/rewrite's uncounted_access.h), memcpy and kin by
// labgrade's renaming of the object's references (grader/build/device_call_guard.h). The rewrite
// turns __builtin_memcmp, __builtin_strcmp and __builtin_strncmp into the C library's functions,
// declared here too, as <string.h> declares them.
//
// Declared before any other header (cuda_emu.h includes this one first): the C++ library's
// templates (std::fill, std::copy) call __builtin_memset and kin, which the rewrite turns into
// these names, and a template's names must be declared where the template is defined.
#pragma once

extern "C" void* __emu_device_memcpy(void* dst, const void* src, __SIZE_TYPE__ n);
extern "C" void* __emu_device_memmove(void* dst, const void* src, __SIZE_TYPE__ n);
extern "C" void* __emu_device_memset(void* dst, int value, __SIZE_TYPE__ n);
extern "C" int memcmp(const void* a, const void* b, __SIZE_TYPE__ n) noexcept;
extern "C" int strcmp(const char* a, const char* b) noexcept;
extern "C" int strncmp(const char* a, const char* b, __SIZE_TYPE__ n) noexcept;

// The read of an atomic read-modify-write, which the instrumentation counts as a store only: a
// counted compile passes the address of every atomic builtin that reads and writes
// (__atomic_fetch_add, __sync_val_compare_and_swap, ...) through a lambda that calls this, which
// counts a load of `bytes` at `address` in a counted run (emu/rewrite's uncounted_access.h).
extern "C" void __emu_device_atomic_read(const volatile void* address, __SIZE_TYPE__ bytes);
