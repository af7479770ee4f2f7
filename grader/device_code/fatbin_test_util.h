// Fatbinaries made byte by byte for the readers' tests: a header, then each entry with a header of
// its own (kind, version, header size, payload size) and its payload as given.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace labkit {

inline std::vector<char> FatbinOf(const std::vector<std::pair<uint16_t, std::string>>& entries) {
  std::vector<char> bytes(16, 0);
  for (const auto& [kind, payload] : entries) {
    std::vector<char> entry(16, 0);
    const uint16_t version = 1;
    const uint32_t header = 16;
    const uint64_t size = payload.size();
    std::memcpy(entry.data(), &kind, 2);
    std::memcpy(entry.data() + 2, &version, 2);
    std::memcpy(entry.data() + 4, &header, 4);
    std::memcpy(entry.data() + 8, &size, 8);
    entry.insert(entry.end(), payload.begin(), payload.end());
    bytes.insert(bytes.end(), entry.begin(), entry.end());
  }
  const uint32_t magic = 0xBA55ED50;
  const uint16_t version = 1, header = 16;
  const uint64_t claimed = bytes.size() - 16;
  std::memcpy(bytes.data(), &magic, 4);
  std::memcpy(bytes.data() + 4, &version, 2);
  std::memcpy(bytes.data() + 6, &header, 2);
  std::memcpy(bytes.data() + 8, &claimed, 8);
  return bytes;
}

}  // namespace labkit
