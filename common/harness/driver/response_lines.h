// What the harness program writes: its response file, one JSON line at a time, and the lines of a
// case (its launches, transfers and buffers) and of a query exercise's call.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch_log.h"
#include "matmul_harness.h"
#include "query_harness.h"

namespace labkit {

// The response file labgrade reads (docs/DESIGN.md, "Harness protocol").
class ResponseWriter {
 public:
  explicit ResponseWriter(const std::string& path) : file_(std::fopen(path.c_str(), "w")) {}
  ~ResponseWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  bool ok() const { return file_ != nullptr; }
  void close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }
  // One line, flushed at once: if the student's code kills the process next, this line survives.
  // Strings in it may be the student's (an exception's words, a kernel's name): bytes that are not
  // UTF-8 are written as U+FFFD, where dump() would throw and the harness report a failure of its
  // own (labgrade: not graded) for what is the student's exception.
  void line(const nlohmann::json& j) {
    const std::string text =
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_;
};

nlohmann::json launches_json(const std::vector<LaunchRecord>& records);
nlohmann::json outcome_json(const CaseOutcome& o);
nlohmann::json query_case_json(const std::string& id, const QueryValues& v);

}  // namespace labkit
