#include "fatbin_elf.h"

#include <algorithm>

namespace labkit {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint32_t kSymbolTable = 2;

}  // namespace

std::optional<std::string> Bytes::String(uint64_t offset, uint64_t limit) const {
  if (offset >= size_) return std::nullopt;
  const std::size_t most = static_cast<std::size_t>(std::min<uint64_t>(limit, size_ - offset));
  const void* end = std::memchr(data_ + offset, '\0', most);
  if (end == nullptr) return std::nullopt;
  return std::string(data_ + offset, static_cast<const char*>(end));
}

Bytes Bytes::Sub(uint64_t offset, uint64_t size) const {
  if (offset > size_ || size > size_ - offset) return Bytes(data_, 0);
  return Bytes(data_ + offset, static_cast<std::size_t>(size));
}

std::optional<CubinElf> CubinElf::Read(const Bytes& elf) {
  constexpr uint32_t kElfMagic = 0x464C457F;  // "\x7fELF", little-endian
  if (elf.size() < 64 || elf.At<uint32_t>(0) != kElfMagic || elf.At<uint8_t>(4) != 2)
    return std::nullopt;  // not an ELF file (compressed), or not a 64-bit one
  const auto table = elf.At<uint64_t>(0x28);
  const auto entry = elf.At<uint16_t>(0x3A), count = elf.At<uint16_t>(0x3C),
             names = elf.At<uint16_t>(0x3E);
  if (!table || !entry || !count || !names || *entry < 64 || *names >= *count) return std::nullopt;
  const auto flags = elf.At<uint32_t>(0x30);
  if (!flags) return std::nullopt;
  CubinElf out(elf);
  out.sm_ = static_cast<int>((*flags >> 8) & 0xFF);
  std::vector<uint32_t> name_offsets;
  for (uint16_t i = 0; i < *count; ++i) {
    const uint64_t at = *table + uint64_t(i) * *entry;
    const auto name = elf.At<uint32_t>(at), type = elf.At<uint32_t>(at + 4),
               link = elf.At<uint32_t>(at + 40), info = elf.At<uint32_t>(at + 44);
    const auto flags = elf.At<uint64_t>(at + 8), offset = elf.At<uint64_t>(at + 24),
               size = elf.At<uint64_t>(at + 32), entry_size = elf.At<uint64_t>(at + 56);
    if (!name || !type || !link || !info || !flags || !offset || !size || !entry_size)
      return std::nullopt;
    name_offsets.push_back(*name);
    out.sections_.push_back({"", *type, *link, *info, *flags, *offset, *size, *entry_size});
  }
  const Section& names_section = out.sections_[*names];
  for (std::size_t i = 0; i < out.sections_.size(); ++i)
    out.sections_[i].name =
        elf.String(names_section.offset + name_offsets[i],
                   names_section.size - std::min<uint64_t>(name_offsets[i], names_section.size))
            .value_or("");
  for (const Section& symbols : out.sections_) {
    if (symbols.type != kSymbolTable || symbols.entry_size < 24 ||
        symbols.link >= out.sections_.size())
      continue;
    const Section& strings = out.sections_[symbols.link];
    for (uint64_t at = symbols.offset; at + 24 <= symbols.offset + symbols.size;
         at += symbols.entry_size) {
      const auto name = elf.At<uint32_t>(at);
      const auto info = elf.At<uint8_t>(at + 4), other = elf.At<uint8_t>(at + 5);
      const auto section = elf.At<uint16_t>(at + 6);
      const auto value = elf.At<uint64_t>(at + 8), size = elf.At<uint64_t>(at + 16);
      if (!name || !info || !other || !section || !value || !size) return std::nullopt;
      std::string text;
      if (*name < strings.size)
        text = elf.String(strings.offset + *name, strings.size - *name).value_or("");
      out.symbols_.push_back({text, *info, *other, *section, *value, *size});
    }
  }
  return out;
}

const CubinElf::Section* CubinElf::Named(const std::string& name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Bytes CubinElf::Contents(const Section& section) const {
  constexpr uint32_t kNoBits = 8;
  if (section.type == kNoBits) return bytes_.Sub(0, 0);
  return bytes_.Sub(section.offset, section.size);
}

std::optional<FatbinHeader> FatbinHeaderOf(const std::vector<char>& fatbin) {
  const Bytes all(fatbin.data(), fatbin.size());
  const auto magic = all.At<uint32_t>(0);
  const auto header = all.At<uint16_t>(6);
  const auto entries = all.At<uint64_t>(8);
  if (!magic || *magic != kFatbinMagic || !header || !entries) return std::nullopt;
  return FatbinHeader{*header, *entries};
}

bool ForEachEntry(const std::vector<char>& fatbin,
                  const std::function<void(FatbinEntryKind, const Bytes&)>& on_entry) {
  const std::optional<FatbinHeader> header = FatbinHeaderOf(fatbin);
  if (!header) return false;
  const Bytes all(fatbin.data(), fatbin.size());
  uint64_t at = header->bytes;
  const uint64_t end = std::min<uint64_t>(header->bytes + header->entries, fatbin.size());
  while (at < end) {
    const auto kind = all.At<uint16_t>(at);
    const auto entry_header = all.At<uint32_t>(at + 4);
    const auto payload = all.At<uint64_t>(at + 8);
    if (!kind || !entry_header || !payload || *entry_header == 0) return false;
    if (*kind == FatbinEntryKind::kPtx || *kind == FatbinEntryKind::kElf)
      on_entry(static_cast<FatbinEntryKind>(*kind), all.Sub(at + *entry_header, *payload));
    at += *entry_header + *payload;
  }
  return true;
}

bool ForEachCubin(const std::vector<char>& fatbin,
                  const std::function<void(const Bytes&)>& on_cubin) {
  return ForEachEntry(fatbin, [&](FatbinEntryKind kind, const Bytes& payload) {
    if (kind == FatbinEntryKind::kElf) on_cubin(payload);
  });
}

}  // namespace labkit
