#include "starter_gen.h"

#include <sstream>

namespace labkit {
namespace {

std::string trim_left(const std::string& s) {
  const auto start = s.find_first_not_of(" \t");
  return start == std::string::npos ? "" : s.substr(start);
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

StarterResult MakeStarter(const std::string& solution_text) {
  static const std::string kBegin = "// BEGIN SOLUTION";
  static const std::string kEnd = "// END SOLUTION";
  static const std::string kStarter = "// STARTER: ";
  StarterResult result;
  std::istringstream in(solution_text);
  std::ostringstream out;
  std::string line;
  int line_number = 0;
  int region_start = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string body = trim_left(line);
    const std::string indent = line.substr(0, line.size() - body.size());
    if (starts_with(body, kBegin)) {
      if (region_start != 0) {
        result.error = "line " + std::to_string(line_number) +
                       ": BEGIN SOLUTION inside the region opened at line " +
                       std::to_string(region_start);
        return result;
      }
      region_start = line_number;
    } else if (starts_with(body, kEnd)) {
      if (region_start == 0) {
        result.error = "line " + std::to_string(line_number) + ": END SOLUTION without BEGIN SOLUTION";
        return result;
      }
      region_start = 0;
    } else if (region_start == 0) {
      out << line << '\n';
    } else if (starts_with(body, kStarter)) {
      out << indent << body.substr(kStarter.size()) << '\n';
    }
  }
  if (region_start != 0) {
    result.error = "line " + std::to_string(region_start) + ": BEGIN SOLUTION is never closed";
    return result;
  }
  result.ok = true;
  result.text = out.str();
  return result;
}

}  // namespace labkit
