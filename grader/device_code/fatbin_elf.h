// Reading what nvcc puts in an object's fatbinary (a 16-byte header: magic 0xBA55ED50, version,
// header size, then the size of the entries that follow; each entry a header of its own, its
// kind, and its payload) and the ELF files (cubins) among its entries: their sections and their
// symbols. Every read is bounds-checked: the bytes come from the student's object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace labkit {

// What labgrade and the kit's replay program read of one: a fatbinary is a few hundred kilobytes.
inline constexpr std::size_t kMaxFatbinBytes = 64u << 20;

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
  std::optional<std::string> String(uint64_t offset, uint64_t limit) const;
  Bytes Sub(uint64_t offset, uint64_t size) const;
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const char* data_;
  std::size_t size_;
};

// One cubin: its sections by name and its symbols.
class CubinElf {
 public:
  struct Section {
    std::string name;
    uint32_t type = 0, link = 0, info = 0;
    uint64_t flags = 0, offset = 0, size = 0, entry_size = 0;
  };
  struct Symbol {
    std::string name;
    uint8_t info = 0, other = 0;
    uint16_t section = 0;
    uint64_t value = 0, size = 0;
  };
  // nullopt where `elf` is not a 64-bit ELF file this can read (a compressed entry).
  static std::optional<CubinElf> Read(const Bytes& elf);

  // The architecture the machine code is for: 90 for sm_90 (e_flags' second byte).
  int sm() const { return sm_; }
  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const Section* Named(const std::string& name) const;
  // The bytes of `section` (empty for one that holds none, such as .nv.shared's NOBITS).
  Bytes Contents(const Section& section) const;

 private:
  explicit CubinElf(const Bytes& bytes) : bytes_(bytes) {}
  Bytes bytes_;
  int sm_ = 0;
  std::vector<Section> sections_;
  std::vector<Symbol> symbols_;
};

// A fatbinary's own header: its size, and the bytes of the entries that follow it.
struct FatbinHeader {
  uint16_t bytes = 0;
  uint64_t entries = 0;
};
// The header `fatbin` starts with; nullopt where it starts with no fatbinary.
std::optional<FatbinHeader> FatbinHeaderOf(const std::vector<char>& fatbin);

// What an entry holds (its header's first field); nvcc writes no other kinds.
enum FatbinEntryKind : uint16_t { kPtx = 1, kElf = 2 };

// Calls `on_entry` with each PTX or ELF entry's kind and payload (as stored: a compressed one is
// not expanded). False where the bytes are no fatbinary, or an entry's header cannot be read (the
// entries after it are not visited).
bool ForEachEntry(const std::vector<char>& fatbin,
                  const std::function<void(FatbinEntryKind, const Bytes&)>& on_entry);

// Calls `on_cubin` with each ELF entry's payload. False where the bytes are no fatbinary, or an
// entry's header cannot be read (the entries after it are not visited).
bool ForEachCubin(const std::vector<char>& fatbin,
                  const std::function<void(const Bytes&)>& on_cubin);

}  // namespace labkit
