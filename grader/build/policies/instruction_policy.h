// System calls written into a student's object as instructions. The symbol allow-list
// (symbol_policy.h) sees every library function an object calls, but inline assembly reaches the
// kernel without calling one: `syscall`, `sysenter` or `int $0x80` straight from the student's
// code would write files, plant links or unprotect the CPU backend's guard pages behind the
// allow-list's back. The labs never need one, so an object holding any is refused.
//
// Read from `objdump -d` of the object, whatever the source spelled (an asm string, a macro, the
// instruction's bytes in a .byte directive): it is what the processor would run. Not seen: a jump
// into such an instruction elsewhere (inside the C library, or into the middle of another
// instruction); THREAT_MODEL.md says what stands behind that.
#pragma once

#include <string>
#include <vector>

namespace labkit {

struct InstructionRefusal {
  std::string instruction;  // as objdump prints it: "syscall", "sysenter", "int $0x80"
  std::string function;     // the function holding it, demangled ("" when objdump named none)
};

// The system-call instructions of an `objdump -d -C --no-show-raw-insn` listing, each
// (instruction, function) once, in order.
std::vector<InstructionRefusal> SystemCallInstructions(const std::string& listing);

// Whether an `objdump -d` listing shows an x86-64 object free of fused multiply-add instructions
// (vfmadd..., vfmsub..., vfnmadd..., vfnmsub...: FMA3, FMA4 and AVX-512, any width, including
// vfmaddsub and vfmsubadd). The CPU backend compiles for x86-64 without FMA, so its default build
// holds one only where the student enabled it (`__attribute__((target("fma")))`, `#pragma GCC
// target`, an intrinsic): without one, compiling with -ffp-contract=off gives the same code.
// False, to be safe, for a listing of another architecture (whose FMA instructions have other
// names), an empty one (no objdump), and one with bytes objdump could not decode as an instruction.
bool FreeOfFusedMultiplyAdd(const std::string& listing);

// For the student: "matmul.cu makes system calls with the syscall instruction (in sys3(long...)),
// which the grader does not allow: ..."
std::string InstructionRefusalMessage(const std::string& file,
                                      const std::vector<InstructionRefusal>& refused);

}  // namespace labkit
