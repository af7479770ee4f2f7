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
