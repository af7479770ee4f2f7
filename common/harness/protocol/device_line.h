// The harness's "device" line and DeviceInfo (device_info.h), written by the harness and read by
// labgrade through these two functions only, so that the keys cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "device_info.h"

namespace labkit {

inline nlohmann::json DeviceLine(const DeviceInfo& d) {
  return {{"type", "device"},
          {"backend", d.backend},
          {"name", d.name},
          {"cc", d.compute_capability},
          {"driver", d.driver},
          {"runtime", d.runtime},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"mem_clock_mhz", d.mem_clock_mhz},
          {"multiprocessors", d.multiprocessors},
          {"l2_bytes", d.l2_bytes},
          {"pageable_memory_access", d.pageable_memory_access}};
}

// The line comes from a process the student's code ran in: a key that is missing or of the wrong
// type reads as unknown (empty, 0) rather than stopping the reader.
inline DeviceInfo DeviceFromLine(const nlohmann::json& line) {
  DeviceInfo d;
  if (!line.is_object()) return d;
  auto text = [&](const char* key) {
    const auto it = line.find(key);
    return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [&](const char* key) {
    const auto it = line.find(key);
    return it != line.end() && it->is_number_integer() ? it->get<long long>() : 0LL;
  };
  d.backend = text("backend");
  d.name = text("name");
  d.compute_capability = text("cc");
  d.driver = text("driver");
  d.runtime = text("runtime");
  d.sm_clock_mhz = number("sm_clock_mhz");
  d.mem_clock_mhz = number("mem_clock_mhz");
  d.multiprocessors = number("multiprocessors");
  d.l2_bytes = number("l2_bytes");
  d.pageable_memory_access = number("pageable_memory_access");
  return d;
}

}  // namespace labkit
