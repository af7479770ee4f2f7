// For the kit's fake harnesses in tests: a request as a whole, read back from the two files
// labgrade writes (request_lines.h), with its cases under "cases" as one array.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "request_lines.h"

namespace labkit {

inline nlohmann::json ReadWholeRequest(const std::string& request_path) {
  std::ifstream in(request_path);
  nlohmann::json request = nlohmann::json::parse(in);
  const std::string dir = request_path.substr(0, request_path.find_last_of('/') + 1);
  request["cases"] = nlohmann::json::array();
  CaseLines cases(dir + kCasesFileName);
  while (auto c = cases.Next()) request["cases"].push_back(std::move(*c));
  return request;
}

}  // namespace labkit
