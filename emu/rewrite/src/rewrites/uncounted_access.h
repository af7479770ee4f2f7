// Code whose memory accesses the CPU backend cannot count: refused or rewritten in counted
// compiles.
//
// labgrade compiles students' files with g++'s kernel AddressSanitizer instrumentation, each load
// and store a call the emulator answers by counting (emu/runtime/src/instrument/access_hooks.cpp):
// the technique checks read those counts. Three things in a translation unit escape the
// instrumentation and would hide loads from them:
//   - the attributes that turn it off for a function (no_sanitize_address, no_sanitize("..."),
//     no_address_safety_analysis, in any spelling);
//   - x86 builtins that take a pointer (_mm_loadh_pi is __builtin_ia32_loadhps; <xmmintrin.h> and
//     its kin define them), and __builtin_apply, which copies a block of memory;
//   - assembly statements, in a function or at namespace scope. An asm label on a declaration
//     (`int f() __asm__("g");`, as the C library's headers write) only names a symbol: allowed.
//   - what makes g++ copy or compare memory inline with string instructions: the `optimize`
//     attribute and `#pragma GCC optimize`, and a target attribute or pragma naming a string-op
//     strategy (inline-all-stringops, memcpy-strategy=...).
//   - a section attribute naming a section of the student's choosing, where the student's data
//     would escape the pages the CPU backend watches (emu/runtime/src/execution/watched_data.h);
//     __constant__'s own `.emu_constant.N` is allowed.
// None of them is CUDA device code, so a correct kernel never needs them. The preprocessed text
// is read whole, macros expanded, so no spelling or #line escapes the check.
//
// And __builtin_memcpy, __builtin_memmove and __builtin_memset (written by hand, or by the C++
// library's std::copy and std::fill) are rewritten to calls of the emulator's counting copies
// (labkit_emu/device_functions.h): g++ would otherwise expand a copy whose size it learns late (a
// size of `4 * (n > 0)` inside a loop over n) into plain moves, after the instrumentation ran.
// labgrade's compile flags keep the unprefixed names from being builtins at all
// (-fno-builtin-memcpy ..., grader/build/submission_build.cpp).
//
// And the address of each atomic read-modify-write builtin (__atomic_fetch_add, __sync_*, in the
// student's code, emu's atomicAdd and the C++ library's std::atomic alike) is passed through a
// lambda that counts the read (__emu_device_atomic_read, labkit_emu/device_copies.h): the
// instrumentation reports such an access as a store only. A call the rewrite cannot read so (the
// builtin's name in parentheses, a `<` in an argument but in a C++ cast) is refused.
#pragma once

#include "source.h"

namespace emu::rewrite {

// One error per kind of construct found (at its first place), none where the text is clean; the
// edits of the builtin copies.
PassResult find_uncounted_accesses(const Source& src);

}  // namespace emu::rewrite
