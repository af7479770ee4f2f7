// Carries out, in a fault handler, the one memory access of a simple instruction that faulted on
// the watched data (watched_data.h), through another mapping of the same memory, so that the
// handler need neither open the page nor single-step the instruction (a fifth of the cost).
// Covers what g++ makes of plain loads and stores: `mov`, `movzx`/`movsx`, and the SSE moves
// (`movss`, `movsd`, `movd`, `movq`, `movups`, `movaps`, `movdqu`, `movdqa`), scalar SSE
// arithmetic from memory (`addss`, `subss`, `mulss`, `divss` and their `sd` forms), and the
// repeated string instructions g++ copies and clears structs with (`rep movs`, `rep stos`).
// Anything else is stepped.
#pragma once
#include <Zydis/Zydis.h>
#include <ucontext.h>

#include <cstdint>

namespace emu::detail {

// Where the bytes at `address` (to `address + bytes`) can be reached without a fault: the other
// mapping's, the address itself (memory that is not watched), or null (partly watched: step).
using AccessibleAt = void* (*)(uintptr_t address, uint64_t bytes);

// One access an emulated instruction made.
struct EmulatedAccess {
  uintptr_t address = 0;
  uint64_t bytes = 0;
  bool store = false;
};

// What the instruction did, up to two accesses (a copy reads and writes); `count` 0 where it was
// not emulated (the caller steps it). On success the registers in `context` are updated and the
// instruction pointer moved past it.
struct Emulated {
  int count = 0;
  EmulatedAccess accesses[2];
};
Emulated emulate_access(const ZydisDecodedInstruction& instruction,
                        const ZydisDecodedOperand* operands, ucontext_t& context,
                        AccessibleAt accessible);

}  // namespace emu::detail
