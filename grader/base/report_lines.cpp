#include "report_lines.h"

#include <cmath>
#include <sstream>

#include "untrusted_file.h"

namespace labkit {

std::vector<nlohmann::json> ReadJsonObjectLines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  // Written by a process the student's code ran in: it may be a FIFO, a link or gigabytes. Such a
  // file reads as no lines at all (so every case counts as unreported).
  auto text = ReadUntrustedFile(path, kMaxReportBytes);
  std::istringstream in(text ? *text : std::string());
  for (std::string line; std::getline(in, line);) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) lines.push_back(std::move(parsed));
  }
  return lines;
}

std::string TextField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

double NumberField(const nlohmann::json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

long long IntegerField(const nlohmann::json& object, const char* key, long long fallback) {
  const double value = NumberField(object, key);
  return std::isfinite(value) ? static_cast<long long>(value) : fallback;
}

}  // namespace labkit
