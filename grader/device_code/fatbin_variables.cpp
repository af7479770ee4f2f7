#include "fatbin_variables.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

namespace labkit {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kElfEntry = 2;  // an entry's kind: 1 PTX, 2 ELF (a cubin)
constexpr uint32_t kSymbolTable = 2;
constexpr uint8_t kObjectSymbol = 1;

// Bounds-checked little-endian reads of a span of bytes.
class Bytes {
 public:
  Bytes(const char* data, std::size_t size) : data_(data), size_(size) {}
  template <class T>
  std::optional<T> At(uint64_t offset) const {
    if (offset > size_ || sizeof(T) > size_ - offset) return std::nullopt;
    T value{};
    std::memcpy(&value, data_ + offset, sizeof value);
    return value;
  }
  // The NUL-terminated string at `offset`, within `limit` bytes of it.
  std::optional<std::string> String(uint64_t offset, uint64_t limit) const {
    if (offset >= size_) return std::nullopt;
    const std::size_t most = static_cast<std::size_t>(std::min<uint64_t>(limit, size_ - offset));
    const void* end = std::memchr(data_ + offset, '\0', most);
    if (end == nullptr) return std::nullopt;
    return std::string(data_ + offset, static_cast<const char*>(end));
  }
  Bytes Sub(uint64_t offset, uint64_t size) const {
    if (offset > size_ || size > size_ - offset) return Bytes(data_, 0);
    return Bytes(data_ + offset, static_cast<std::size_t>(size));
  }
  std::size_t size() const { return size_; }

 private:
  const char* data_;
  std::size_t size_;
};

struct FatbinHeader {
  uint16_t bytes = 0;    // the header's own
  uint64_t entries = 0;  // the bytes of the entries after it
};

// The fatbinary's header, where `all` starts with one.
std::optional<FatbinHeader> HeaderOf(const Bytes& all) {
  const auto magic = all.At<uint32_t>(0);
  const auto header = all.At<uint16_t>(6);
  const auto size = all.At<uint64_t>(8);
  if (!magic || *magic != kFatbinMagic || !header || !size) return std::nullopt;
  return FatbinHeader{*header, *size};
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entry_size = 0;
};

std::optional<Section> SectionAt(const Bytes& elf, uint64_t table, uint16_t entry, uint16_t i) {
  const uint64_t at = table + uint64_t(i) * entry;
  const auto name = elf.At<uint32_t>(at), type = elf.At<uint32_t>(at + 4),
             link = elf.At<uint32_t>(at + 40);
  const auto offset = elf.At<uint64_t>(at + 24), size = elf.At<uint64_t>(at + 32),
             entry_size = elf.At<uint64_t>(at + 56);
  if (!name || !type || !link || !offset || !size || !entry_size) return std::nullopt;
  return Section{*name, *type, *link, *offset, *size, *entry_size};
}

// The objects of one cubin into `out`; false where it cannot be read as an ELF64 file.
bool ReadElf(const Bytes& elf, FatbinVariables& out) {
  constexpr uint32_t kElfMagic = 0x464C457F;  // "\x7fELF", little-endian
  if (elf.size() < 64 || elf.At<uint32_t>(0) != kElfMagic || elf.At<uint8_t>(4) != 2)
    return false;  // not an ELF file (compressed), or not a 64-bit one
  const auto table = elf.At<uint64_t>(0x28);
  const auto entry = elf.At<uint16_t>(0x3A), count = elf.At<uint16_t>(0x3C),
             names = elf.At<uint16_t>(0x3E);
  if (!table || !entry || !count || !names || *entry < 64) return false;
  const auto name_section = SectionAt(elf, *table, *entry, *names);
  if (!name_section) return false;
  std::vector<Section> sections;
  for (uint16_t i = 0; i < *count; ++i) {
    const auto s = SectionAt(elf, *table, *entry, i);
    if (!s) return false;
    sections.push_back(*s);
  }
  auto section_name = [&](uint16_t index) -> std::string {
    if (index >= sections.size()) return "";
    return elf
        .String(name_section->offset + sections[index].name,
                name_section->size - std::min<uint64_t>(sections[index].name, name_section->size))
        .value_or("");
  };
  for (const Section& symbols : sections) {
    if (symbols.type != kSymbolTable || symbols.entry_size < 24 || symbols.link >= sections.size())
      continue;
    const Section& strings = sections[symbols.link];
    for (uint64_t at = symbols.offset; at + 24 <= symbols.offset + symbols.size;
         at += symbols.entry_size) {
      const auto name = elf.At<uint32_t>(at);
      const auto info = elf.At<uint8_t>(at + 4);
      const auto index = elf.At<uint16_t>(at + 6);
      if (!name || !info || !index) return false;
      if ((*info & 0xF) != kObjectSymbol || *name >= strings.size) continue;
      const auto symbol = elf.String(strings.offset + *name, strings.size - *name);
      if (!symbol || symbol->empty()) continue;
      const std::string where = section_name(*index);
      if (where.rfind(".nv.constant", 0) == 0) out.constant.push_back(*symbol);
      if (where.rfind(".nv.global", 0) == 0) out.global.push_back(*symbol);
    }
  }
  return true;
}

}  // namespace

bool IsOneFatbin(const std::vector<char>& bytes) {
  constexpr uint16_t kHeaderBytes = 16;
  if (bytes.size() > kMaxFatbinBytes) return false;
  const std::optional<FatbinHeader> header = HeaderOf(Bytes(bytes.data(), bytes.size()));
  return header && header->bytes == kHeaderBytes && header->entries == bytes.size() - kHeaderBytes;
}

FatbinVariables VariablesInFatbin(const std::vector<char>& fatbin) {
  FatbinVariables out;
  const Bytes all(fatbin.data(), fatbin.size());
  const std::optional<FatbinHeader> header = HeaderOf(all);
  if (!header) return out;
  out.complete = true;
  uint64_t at = header->bytes;
  const uint64_t end = std::min<uint64_t>(header->bytes + header->entries, fatbin.size());
  while (at < end) {
    const auto kind = all.At<uint16_t>(at);
    const auto entry_header = all.At<uint32_t>(at + 4);
    const auto payload = all.At<uint64_t>(at + 8);
    if (!kind || !entry_header || !payload || *entry_header == 0) {
      out.complete = false;
      break;
    }
    if (*kind == kElfEntry && !ReadElf(all.Sub(at + *entry_header, *payload), out))
      out.complete = false;  // compressed, or not an ELF file
    at += *entry_header + *payload;
  }
  return out;
}

}  // namespace labkit
