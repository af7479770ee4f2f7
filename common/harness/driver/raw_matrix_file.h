// Raw float32 matrix files (little-endian, row-major, no header), as exchanged with labgrade.
#pragma once

#include <cstddef>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace labkit::raw_file {

inline std::vector<float> read(const std::string& dir, const std::string& name,
                               std::size_t expected_count) {
  const std::string path = dir + name;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::streamsize bytes = in.tellg();
  if (bytes != static_cast<std::streamsize>(expected_count * sizeof(float)))
    throw std::runtime_error(path + ": expected " + std::to_string(expected_count * sizeof(float)) +
                             " bytes, found " + std::to_string(bytes));
  std::vector<float> values(expected_count);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()), bytes);
  return values;
}

inline void write(const std::string& dir, const std::string& name,
                  const std::vector<float>& values) {
  const std::string path = dir + name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace labkit::raw_file
