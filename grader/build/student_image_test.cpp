#include "student_image.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

const char* kObject =
    "0000000000000000 000000000000002c T _Z4kernPKfPfi\n"
    "0000000000000040 0000000000000010 T _Z7host_fnPKfPfi\n"
    "0000000000000010 0000000000000004 b _ZL4side\n"
    "0000000000000000 0000000000000018 d _ZL15__fatDeviceText\n"
    "0000000000000000 n _ZN4dim3C5Ejjj\n";

const char* kProgram =
    "0000000000400000 T __executable_start\n"
    "0000000000401000 000000000000002c T _Z4kernPKfPfi\n"
    "0000000000401040 0000000000000010 T _Z7host_fnPKfPfi\n"
    "0000000000405010 0000000000000004 b _ZL4side\n"
    "0000000000405100 0000000000000018 d _ZL15__fatDeviceText\n"
    "0000000000405200 0000000000000018 d _ZL15__fatDeviceText\n"
    "0000000000402000 0000000000000020 t _ZN3emu6detail12_GLOBAL__N_17ClosureIJPKfPfiEE3runEPKv\n"
    "0000000000403000 0000000000000080 T _ZN6labkit13baseline_rowsEPKfS1_Pfiii\n";

TEST(StudentImage, ListsTheStudentsKernelsAndVariablesAsImageOffsets) {
  const nlohmann::json image = StudentImageFromNm({kObject}, kProgram);
  EXPECT_EQ(image["kernels"], nlohmann::json::parse("[[4096, 44], [4160, 16]]"));
  EXPECT_EQ(image["variables"], nlohmann::json::parse("[[20496, 4]]"));
  EXPECT_EQ(image["runners"], nlohmann::json::parse("[[8192, 32]]"));
}

TEST(StudentImage, LeavesOutNamesTheProgramHoldsTwiceAndTheKitsOwnCode) {
  const nlohmann::json image = StudentImageFromNm({kObject}, kProgram);
  for (const auto& v : image["variables"]) EXPECT_NE(v[0], 0x5100);  // two __fatDeviceText
  for (const auto& k : image["kernels"]) EXPECT_NE(k[0], 0x3000);    // the kit's baseline
}

// The names another build of the same sources is matched by (plan_translation.h): a runner's
// copies (the kit's and the student's objects each have one) numbered in address order.
TEST(StudentImage, NamesEachEntryForAnotherBuildAndNumbersTheRunnersCopies) {
  const std::string program = std::string(kProgram) +
      "0000000000402100 0000000000000020 t _ZN3emu6detail12_GLOBAL__N_17ClosureIJPKfPfiEE3runEPKv\n";
  const nlohmann::json symbols = StudentSymbolsJson(StudentImageEntries({kObject}, program));
  const std::string runner = "_ZN3emu6detail12_GLOBAL__N_17ClosureIJPKfPfiEE3runEPKv";
  EXPECT_EQ(symbols["_Z4kernPKfPfi"], nlohmann::json::parse(R"([4096, 44, "code"])"));
  EXPECT_EQ(symbols["_ZL4side"], nlohmann::json::parse(R"([20496, 4, "data"])"));
  EXPECT_EQ(symbols[runner + "#0"], nlohmann::json::parse(R"([8192, 32, "code"])"));
  EXPECT_EQ(symbols[runner + "#1"], nlohmann::json::parse(R"([8448, 32, "code"])"));
  EXPECT_FALSE(symbols.contains("_ZN6labkit13baseline_rowsEPKfS1_Pfiii"));
  EXPECT_FALSE(symbols.contains("_ZL15__fatDeviceText"));
}

TEST(StudentImage, WithoutTheImageStartNothingIsListed) {
  const nlohmann::json image =
      StudentImageFromNm({kObject}, "0000000000401000 000000000000002c T _Z4kernPKfPfi\n");
  EXPECT_TRUE(image["kernels"].empty());
  EXPECT_TRUE(image["variables"].empty());
}

// nm's System V listing of an object of the CPU backend (`nm -S --defined-only -f sysv`).
const char* kSysvObject =
    "\n\nSymbols from matmul.cu.o:\n\n"
    "Name                  Value           Class        Type         Size             Line  "
    "Section\n\n"
    "_ZL1f               |0000000000000000|   d  |            OBJECT|000000000000000c|     "
    "|.emu_constant.6\n"
    "c_block_side        |0000000000000000|   B  |            OBJECT|0000000000000004|     "
    "|.emu_constant.0\n"
    "d_table             |0000000000000020|   B  |            OBJECT|0000000000001000|     |.bss\n"
    "_Z4kernPKfPfi       |0000000000000000|   T  |              FUNC|000000000000002c|     "
    "|.text\n";

TEST(StudentImage, ConstantsAreTheVariablesInTheEmulatorsConstantSections) {
  const std::map<std::string, long long> constants = ConstantVariablesFromNm(kSysvObject);
  EXPECT_EQ(constants, (std::map<std::string, long long>{{"_ZL1f", 12}, {"c_block_side", 4}}));
}

TEST(StudentImage, ConstantVariablesAreListedBesideTheVariables) {
  const nlohmann::json image =
      StudentImageJson(StudentImageEntries({kObject}, kProgram, {"_ZL4side"}));
  EXPECT_EQ(image["variables"], nlohmann::json::parse("[[20496, 4]]"));
  EXPECT_EQ(image["constants"], nlohmann::json::parse("[[20496, 4]]"));
  EXPECT_TRUE(StudentImageJson(StudentImageEntries({kObject}, kProgram))["constants"].empty());
}

TEST(StudentImage, ConstantMemoryIsHeldToTheGpusSixtyFourKibibytes) {
  EXPECT_EQ(ConstantMemoryExceeded({{"_ZL1a", 65536 - 4}, {"c_side", 4}}), "");
  const std::string over = ConstantMemoryExceeded({{"_ZL1a", 65536}, {"c_side", 4}});
  EXPECT_NE(over.find("take 65540 bytes, more than the 64 KiB (65536 bytes)"), std::string::npos)
      << over;
  EXPECT_NE(over.find("The largest is a, 65536 bytes"), std::string::npos) << over;
}

// The link's map (`-Wl,-Map=`): input sections by object, a long name alone on its line.
const char* kMap =
    "Discarded input sections\n\n"
    " .bss._ZN2gAE  0x0000000000000000     0x1000 /w/matmul.cu.o\n\n"
    "Memory Configuration\n\n"
    "Linker script and memory map\n\n"
    " .text          0x0000000000401000      0xa64 /w/matmul.cu.o\n"
    " .rodata.cst4   0x0000000000481ca0        0x4 /w/matmul.cu.o\n"
    " .rodata.str1.1\n"
    "                0x0000000000481c84       0x1c /w/matmul.cu.o\n"
    " .tbss          0x0000000000495490      0x410 /w/matmul.cu.o\n"
    " .emu_constant.0\n"
    "                0x0000000000496000        0x4 /w/matmul.cu.o\n"
    " .data          0x0000000000496494        0x0 /w/matmul.cu.o\n"
    " .bss           0x0000000000496500       0x20 /kit/libharness.a(harness.cu.cpp.o)\n"
    " .bss           0x0000000000496520       0x40 /w/matmul.cu.o\n"
    "                0x0000000000496520                last_error\n"
    " .bss._ZN2gBE\n"
    "                0x0000000000497000     0x1000 /w/matmul.cu.o\n";

TEST(StudentImage, TheStudentsDataIsEveryDataSectionOfItsObjectsThatTheLinkKept) {
  const auto ranges = StudentDataFromMap(kMap, {"/w/matmul.cu.o"}, 0x400000);
  const std::vector<std::pair<long long, long long>> want = {
      {0x81c84, 0x1c}, {0x96520, 0x40}, {0x97000, 0x1000}};
  EXPECT_EQ(ranges, want);
}

}  // namespace
}  // namespace labkit
