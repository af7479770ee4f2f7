#include "fatbin_variables.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "fatbin_elf.h"
#include "fatbin_test_util.h"

namespace labkit {
namespace {

// A fatbinary's header saying `claimed` bytes of entries follow, and `payload` zero bytes after it.
std::vector<char> Fatbin(std::size_t payload, uint64_t claimed) {
  std::vector<char> bytes(16 + payload, 0);
  const uint32_t magic = 0xBA55ED50;
  const uint16_t version = 1, header = 16;
  std::memcpy(bytes.data(), &magic, 4);
  std::memcpy(bytes.data() + 4, &version, 2);
  std::memcpy(bytes.data() + 6, &header, 2);
  std::memcpy(bytes.data() + 8, &claimed, 8);
  return bytes;
}

TEST(FatbinVariables, OneWholeFatbinIsUsed) { EXPECT_TRUE(IsOneFatbin(Fatbin(64, 64))); }

// A section attribute in the student's source can add bytes to the object's .nv_fatbin: device
// code other than the linked program's, which the replay must not load in its place.
TEST(FatbinVariables, MoreThanOneFatbinIsRefused) {
  EXPECT_FALSE(IsOneFatbin(Fatbin(64, 32)));
  std::vector<char> two = Fatbin(64, 64);
  const std::vector<char> second = Fatbin(8, 8);
  two.insert(two.end(), second.begin(), second.end());
  EXPECT_FALSE(IsOneFatbin(two));
}

TEST(FatbinVariables, OtherBytesAreNoFatbin) {
  std::vector<char> bytes = Fatbin(64, 64);
  bytes[0] = 0;
  EXPECT_FALSE(IsOneFatbin(bytes));
  EXPECT_FALSE(IsOneFatbin({}));
  EXPECT_FALSE(IsOneFatbin(std::vector<char>(8, 0)));
}

// An ELF entry whose payload is no ELF file (what a compressed one looks like): the variables
// cannot be told, and the list says so.
TEST(FatbinVariables, AnEntryThatIsNoElfFileLeavesTheListIncomplete) {
  const std::vector<char> fatbin = FatbinOf({{FatbinEntryKind::kElf, "zzzzzzzz"}});
  const FatbinVariables v = VariablesInFatbin(fatbin);
  EXPECT_FALSE(v.complete);
  EXPECT_TRUE(v.constant.empty());
}

TEST(FatbinVariables, BytesThatAreNoFatbinTellNothing) {
  EXPECT_FALSE(VariablesInFatbin({}).complete);
  EXPECT_FALSE(VariablesInFatbin(std::vector<char>(64, 0)).complete);
  std::vector<char> cut = Fatbin(0, 1000);       // says more than there is
  EXPECT_TRUE(VariablesInFatbin(cut).complete);  // no entry at all: nothing unknown
  cut.resize(20, 'x');
  EXPECT_FALSE(VariablesInFatbin(cut).complete);
}

}  // namespace
}  // namespace labkit
