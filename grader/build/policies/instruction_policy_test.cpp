#include "instruction_policy.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

// objdump -d -C --no-show-raw-insn of a file with a syscall wrapper, the instruction's bytes in a
// .byte directive, the 32-bit gate and sysenter (binutils 2.40).
constexpr const char* kListing =
    "\n"
    "s.o:     file format elf64-x86-64\n"
    "\n"
    "\n"
    "Disassembly of section .text:\n"
    "\n"
    "0000000000000000 <ns::hidden(long)>:\n"
    "   0:\tmov    %rdi,%rax\n"
    "   3:\tsyscall\n"
    "   5:\tint    $0x80\n"
    "   7:\tsysenter\n"
    "  18:\tsyscall\n"
    "  1a:\tret\n"
    "\n"
    "0000000000000020 <f(long)>:\n"
    "  22:\tmov    $0x27,%eax\n"
    "  2a:\tsyscall\n"
    "  2c:\timul   $0x50f,%rdi,%rdi\n"
    "  36:\tret\n";

TEST(SystemCallInstructions, FindsEachInstructionInEachFunctionOnce) {
  const std::vector<InstructionRefusal> found = SystemCallInstructions(kListing);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].instruction, "syscall");
  EXPECT_EQ(found[0].function, "ns::hidden(long)");
  EXPECT_EQ(found[1].instruction, "int $0x80");
  EXPECT_EQ(found[2].instruction, "sysenter");
  EXPECT_EQ(found[3].instruction, "syscall");
  EXPECT_EQ(found[3].function, "f(long)");
}

// What honest code compiles to: calls, a constant whose bytes happen to be 0f 05, other ints.
TEST(SystemCallInstructions, NoneInOrdinaryCode) {
  EXPECT_TRUE(SystemCallInstructions("0000000000000000 <g()>:\n"
                                     "   0:\tcall   5 <g()+0x5>\n"
                                     "   5:\timul   $0x50f,%rdi,%rdi\n"
                                     "   9:\tint3\n"
                                     "   a:\tmov    $0x80,%eax\n"
                                     "   f:\tret\n")
                  .empty());
  EXPECT_TRUE(SystemCallInstructions("").empty());
}

// The head of objdump's listing of an x86-64 object, before its functions.
constexpr const char* kX86Header =
    "\nmatmul.cu.o:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n";

// g++ -O2 for x86-64 without FMA: a dot product's multiply and add stay two instructions.
TEST(FreeOfFusedMultiplyAdd, OrdinaryCodeIsFree) {
  EXPECT_TRUE(FreeOfFusedMultiplyAdd(std::string(kX86Header) +
                                     "0000000000000000 <dot(float const*, float const*, int)>:\n"
                                     "  20:\tmovss  (%rdi,%rax,4),%xmm1\n"
                                     "  25:\tmulss  (%rsi,%rax,4),%xmm1\n"
                                     "  2a:\taddss  %xmm1,%xmm0\n"
                                     "  2e:\tcall   33 <vfmadd_by_name(float)>\n"
                                     "  33:\tret\n"));
}

// Each family in a spelling objdump prints (binutils 2.40): a target("fma") function's
// contraction, FMA4's four operands, AVX-512 with a mask, a {vex} prefix, the subtract forms.
TEST(FreeOfFusedMultiplyAdd, FindsEveryFamilyAndWidth) {
  for (const char* instruction :
       {"vfmadd231ss (%rsi,%rax,1),%xmm1,%xmm0", "vfmaddps %xmm1,%xmm2,%xmm3,%xmm4",
        "vfmadd231ps %zmm1,%zmm2,%zmm3{%k1}", "{vex} vfmadd213sd %xmm1,%xmm2,%xmm3",
        "vfnmsub132pd %ymm1,%ymm2,%ymm3", "vfmaddsub231ps %xmm1,%xmm2,%xmm3",
        "vfmsub213ss %xmm1,%xmm2,%xmm3", "vfnmadd231ps %ymm1,%ymm2,%ymm3"}) {
    const std::string listing = std::string(kX86Header) + "0000000000000000 <dotf()>:\n" +
                                "   0:\tvmovss (%rdi),%xmm1\n   5:\t" + instruction +
                                "\n   b:\tret\n";
    EXPECT_FALSE(FreeOfFusedMultiplyAdd(listing)) << instruction;
  }
}

// Nothing is concluded from a listing the kit cannot read in full: another architecture (aarch64
// fuses with fmadd, which the kit does not look for), no listing at all, bytes objdump could not
// decode.
TEST(FreeOfFusedMultiplyAdd, UnknownIsNotFree) {
  EXPECT_FALSE(FreeOfFusedMultiplyAdd(""));
  EXPECT_FALSE(
      FreeOfFusedMultiplyAdd("\nm.o:     file format elf64-littleaarch64\n\n"
                             "0000000000000000 <dot()>:\n   0:\tfmadd\ts0, s1, s2, s0\n"));
  EXPECT_FALSE(FreeOfFusedMultiplyAdd(std::string(kX86Header) +
                                      "0000000000000000 <.text>:\n  1b:\t.byte 0x62\n"));
  EXPECT_FALSE(
      FreeOfFusedMultiplyAdd(std::string(kX86Header) + "0000000000000000 <f()>:\n   0:\t(bad)\n"));
}

TEST(InstructionRefusalMessage, NamesTheInstructionAndTheFunction) {
  EXPECT_EQ(InstructionRefusalMessage(
                "matmul.cu", {{"syscall", "sys3(long, long, long, long)"}, {"int $0x80", ""}}),
            "matmul.cu makes system calls itself (the syscall instruction in sys3(long, long, "
            "long, long), the int $0x80 instruction), which the grader does not allow: a "
            "submission reaches the system only through the library functions the lab allows. "
            "Remove the inline assembly.");
}

}  // namespace
}  // namespace labkit
