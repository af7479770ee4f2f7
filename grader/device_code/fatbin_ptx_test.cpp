#include "fatbin_ptx.h"

#include <gtest/gtest.h>

#include "fatbin_elf.h"
#include "fatbin_test_util.h"

namespace labkit {
namespace {
using namespace std::string_literals;

const std::string kModule = "//\n.version 9.0\n.target sm_90\n.visible .entry k()\n{\n\tret;\n}\n";

TEST(FatbinPtx, EveryPtxEntryIsReadAndTheCubinsLeftOut) {
  const std::optional<std::string> ptx = PtxInFatbin(
      FatbinOf({{FatbinEntryKind::kElf,
                 "\x7f"
                 "ELF...."},
                {FatbinEntryKind::kPtx, kModule + std::string(5, '\0')},  // nvcc pads with NULs
                {FatbinEntryKind::kPtx, kModule}}));
  ASSERT_TRUE(ptx.has_value());
  EXPECT_EQ(*ptx, kModule + "\n" + kModule + "\n");
}

// nvcc 13 stores PTX compressed unless told otherwise (a zstd frame starts 28 b5 2f fd): that
// text is not what the module says, and nothing is read.
TEST(FatbinPtx, ACompressedEntryIsNotRead) {
  EXPECT_FALSE(PtxInFatbin(FatbinOf({{FatbinEntryKind::kPtx, kModule},
                                     {FatbinEntryKind::kPtx, "\x28\xb5\x2f\xfd.version\0zz"s}}))
                   .has_value());
  EXPECT_FALSE(PtxInFatbin(FatbinOf({{FatbinEntryKind::kPtx, "\x28\xb5\x2f\xfd\x10\x20"}})));
}

TEST(FatbinPtx, NoPtxOrNoFatbinIsNotRead) {
  EXPECT_FALSE(PtxInFatbin(FatbinOf({{FatbinEntryKind::kElf,
                                      "\x7f"
                                      "ELF"}}))
                   .has_value());
  EXPECT_FALSE(PtxInFatbin({}).has_value());
  EXPECT_FALSE(PtxInFatbin(std::vector<char>(64, 0)).has_value());
  EXPECT_FALSE(PtxOfBuild("/nonexistent/harness").has_value());
}

}  // namespace
}  // namespace labkit
