#include "fatbin_variables.h"

#include "fatbin_elf.h"

namespace labkit {
namespace {

constexpr uint8_t kObjectSymbol = 1;

// The objects of one cubin into `out`; false where it cannot be read as an ELF64 file.
bool ReadVariables(const Bytes& bytes, FatbinVariables& out) {
  const std::optional<CubinElf> elf = CubinElf::Read(bytes);
  if (!elf) return false;
  for (const CubinElf::Symbol& symbol : elf->symbols()) {
    if ((symbol.info & 0xF) != kObjectSymbol || symbol.name.empty() ||
        symbol.section >= elf->sections().size())
      continue;
    const std::string& where = elf->sections()[symbol.section].name;
    if (where.rfind(".nv.constant", 0) == 0) out.constant.push_back(symbol.name);
    if (where.rfind(".nv.global", 0) == 0) out.global.push_back(symbol.name);
  }
  return true;
}

}  // namespace

bool IsOneFatbin(const std::vector<char>& bytes) {
  constexpr uint16_t kHeaderBytes = 16;
  if (bytes.size() > kMaxFatbinBytes) return false;
  const std::optional<FatbinHeader> header = FatbinHeaderOf(bytes);
  return header && header->bytes == kHeaderBytes && header->entries == bytes.size() - kHeaderBytes;
}

FatbinVariables VariablesInFatbin(const std::vector<char>& fatbin) {
  FatbinVariables out;
  bool every_cubin_read = true;
  out.complete = ForEachCubin(fatbin, [&](const Bytes& cubin) {
    if (!ReadVariables(cubin, out)) every_cubin_read = false;  // compressed, or not an ELF file
  });
  out.complete = out.complete && every_cubin_read;
  return out;
}

}  // namespace labkit
