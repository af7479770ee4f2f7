#include "ptx_constant_reads.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

TEST(PtxConstantReads, FindsKernelsReadingConstantMemory) {
  const char* const ptx = R"(.const .align 4 .b32 c_block_side;
// .globl	_Z6readerPf
.visible .entry _Z6readerPf(
	.param .u64 _Z6readerPf_param_0
)
{
	ld.param.u64 	%rd1, [_Z6readerPf_param_0];
	ld.const.u32 	%r1, [c_block_side];
	ret;
}
// .globl	_Z5plainPf
.visible .entry _Z5plainPf(
	.param .u64 _Z5plainPf_param_0
)
{
	ld.param.u64 	%rd1, [_Z5plainPf_param_0];
	ret;
}
)";
  EXPECT_EQ(KernelsReadingConstantMemory(ptx), std::set<std::string>{"_Z6readerPf"});
  EXPECT_TRUE(KernelsReadingConstantMemory("").empty());
}

// Inline asm reaches the PTX as written: a comment that names the instruction reads nothing, an
// instruction in a braced block or under a predicate does.
TEST(PtxConstantReads, ConstantReadsAreInstructionsNotComments) {
  const char* const ptx = R"(.visible .entry _Z6forgedPf(
	.param .u64 _Z6forgedPf_param_0
)
{
	// ld.const.u32 	%r1, [c_block_side];
	/* ld.const.u32 	%r1, [c_block_side];
	   ld.const.u32 	%r2, [c_block_side]; */
	mov.u32 	%r1, 0; // ld.const
	ret;
}
.visible .entry _Z7guardedPf(
	.param .u64 _Z7guardedPf_param_0
)
{
	@%p1 ld.const.u32 	%r1, [c_block_side];
	ret;
}
.visible .entry _Z5bracePf(
	.param .u64 _Z5bracePf_param_0
)
{
	{ ld.const.u32 	%r1, [c_block_side]; }
	ret;
}
)";
  EXPECT_EQ(KernelsReadingConstantMemory(ptx),
            (std::set<std::string>{"_Z7guardedPf", "_Z5bracePf"}));
}

// Found by a red-team pass (2026-11-27): a device function called before the read is a block
// whose brace stands in column 0 of the PTX, which ended the kernel's body for the old scan; a
// `.pragma` string may spell another kernel's header; -lineinfo's `.loc` lines end with no `;`.
// Reads in called functions count.
TEST(PtxConstantReads, BodiesEndAtTheirOwnBraceAndStringsAreNotCode) {
  const char* const ptx = R"(.const .align 4 .b32 c_side;
.func  (.param .b32 func_retval0) _Z6helperi(
	.param .b32 _Z6helperi_param_0
)
;
.visible .entry _Z5printPf(
	.param .u64 _Z5printPf_param_0
)
{
	{ // callseq 0, 0
	.param .b64 param0;
	call.uni (retval0), vprintf, (param0, param1);
}
	// end inline asm
	ld.const.u32 	%r1, [c_side];
	ret;
}
.visible .entry _Z5decoyPf(
	.param .u64 _Z5decoyPf_param_0
)
{
	.pragma ".entry _Z6victimPf";
	.loc	1 13 3
	ld.const.u32 	%r1, [c_side];
	ret;
}
.visible .entry _Z6victimPf(
	.param .u64 _Z6victimPf_param_0
)
{
	ret;
}
.func  (.param .b32 func_retval0) _Z6helperi(
	.param .b32 _Z6helperi_param_0
)
{
	$L__BB0_1:
	@p ld.const.u32 	%r1, [c_side];
	ret;
}
.visible .entry _Z6callerPf(
	.param .u64 _Z6callerPf_param_0
)
{
	{
	call.uni (retval0),
	_Z6helperi,
	(
	param0
	);
	}
	ret;
}
.visible .entry _Z9recursivePf(
	.param .u64 _Z9recursivePf_param_0
)
{
	call.uni _Z9recursivePf, (param0);
	ret;
}
)";
  EXPECT_EQ(KernelsReadingConstantMemory(ptx),
            (std::set<std::string>{"_Z5printPf", "_Z5decoyPf", "_Z6callerPf"}));
}

// A statement of inline asm as long as the student likes is read by its start alone.
TEST(PtxConstantReads, AVeryLongStatementIsReadByItsStart) {
  const std::string ptx = ".visible .entry _Z4longPf()\n{\n\tld.const.u32 %r1, [c" +
                          std::string(4 << 20, 'x') + "];\n\tret;\n}\n";
  EXPECT_EQ(KernelsReadingConstantMemory(ptx), std::set<std::string>{"_Z4longPf"});
}

}  // namespace
}  // namespace labkit
