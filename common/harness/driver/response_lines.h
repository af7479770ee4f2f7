// What the harness program writes: its response file, one JSON line at a time, and the lines of a
// case (its launches, transfers and buffers) and of a query exercise's call.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch_log.h"
#include "matmul_harness.h"
#include "query_harness.h"

namespace labkit {

// The response file labgrade reads (docs/DESIGN.md, "Harness protocol"). It is open only while a
// line is written, never while the student's code runs: an open descriptor is one the student's
// code can write through, with nothing but allowed calls (a stdio stream whose descriptor field it
// points there, then printf), and forge the lines labgrade judges (r20, r23: a query's values, a
// replay's launches and counts). The student's code cannot open a file itself (the symbol and
// instruction checks refuse every way).
class ResponseWriter {
 public:
  // Creates (or empties) the file at `path`; ok() says whether that worked.
  explicit ResponseWriter(const std::string& path);
  bool ok() const { return ok_; }
  // One line, written whole before this returns: if the student's code kills the process next,
  // this line survives. Strings in it may be the student's (an exception's words, a kernel's
  // name): bytes that are not UTF-8 are written as U+FFFD, where dump() would throw and the
  // harness report a failure of its own (labgrade: not graded) for what is the student's exception.
  void line(const nlohmann::json& j);

 private:
  std::string path_;  // absolute: the working folder is the process's, which could change
  bool ok_ = false;
};

nlohmann::json launches_json(const std::vector<LaunchRecord>& records);
nlohmann::json outcome_json(const CaseOutcome& o);
nlohmann::json query_case_json(const std::string& id, const QueryValues& v);

}  // namespace labkit
