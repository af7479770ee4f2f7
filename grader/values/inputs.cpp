#include "inputs.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "mismatch.h"
#include "untrusted_file.h"

namespace labkit {
namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Fnv1a(const std::string& s, uint64_t h = 0xCBF29CE484222325ull) {
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001B3ull;
  return h;
}

}  // namespace

uint64_t MatrixSeed(uint64_t seed, const std::string& case_id, const std::string& matrix) {
  uint64_t state = seed;
  uint64_t h = SplitMix64(state);
  // '\0' between the parts: ("c1", "0A") and ("c10", "A") must differ.
  h = Fnv1a(case_id + std::string(1, '\0') + matrix, h);
  return h;
}

std::vector<float> GenerateMatrix(uint64_t seed, const std::string& case_id,
                                  const std::string& matrix, int64_t rows, int64_t cols,
                                  ValueKind kind) {
  uint64_t state = MatrixSeed(seed, case_id, matrix);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& x : v) {
    const uint64_t r = SplitMix64(state);
    if (kind == ValueKind::kSmallIntegers) {
      x = static_cast<float>(static_cast<int>((r >> 32) % 9) - 4);
    } else {
      const uint32_t sign = static_cast<uint32_t>(r >> 63);
      const uint32_t exponent = 126 - static_cast<uint32_t>((r >> 61) & 3);  // [1/16, 1)
      const uint32_t significand = static_cast<uint32_t>(r) & 0x7FFFFFu;
      x = FloatFromBits(sign << 31 | exponent << 23 | significand);
    }
  }
  return v;
}

ProductInputs GenerateProductInputs(uint64_t seed, const std::string& case_id, const Shape& s,
                                    ValueKind kind) {
  return {GenerateMatrix(seed, case_id, "A", s.m, s.n, kind),
          GenerateMatrix(seed, case_id, "B", s.n, s.k, kind)};
}

std::string EncodeFloats(const std::vector<float>& values) {
  std::string bytes(values.size() * 4, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t u = FloatBits(values[i]);
    for (int j = 0; j < 4; ++j) bytes[4 * i + j] = static_cast<char>((u >> (8 * j)) & 0xFF);
  }
  return bytes;
}

std::vector<float> DecodeFloats(const std::string& bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t u = 0;
    for (int j = 0; j < 4; ++j)
      u |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + j])) << (8 * j);
    values[i] = FloatFromBits(u);
  }
  return values;
}

Result<std::vector<float>> ReadFloatFile(const std::string& path, int64_t rows, int64_t cols) {
  const uint64_t expected = static_cast<uint64_t>(rows * cols) * 4;
  // Outputs lie where the student's code can write: never more than the matrix, never a FIFO.
  auto read = ReadUntrustedFile(path, expected);
  if (!read) return MakeError(read.error());
  const std::string& bytes = *read;
  if (bytes.size() != expected)
    return MakeError(path + ": expected " + std::to_string(expected) + " bytes (" +
                     std::to_string(rows) + "x" + std::to_string(cols) + " floats), found " +
                     std::to_string(bytes.size()));
  return DecodeFloats(bytes);
}

Status WriteFloatFile(const std::string& path, const std::vector<float>& values) {
  return WriteUntrustedFile(path, EncodeFloats(values));
}

}  // namespace labkit
