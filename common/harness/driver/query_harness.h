// Query exercises (lab.yaml `kind: query`): the student's function returns numbers (an occupancy,
// a block size, a largest width) and kit code in the same harness works out the same numbers
// through the CUDA runtime. The harness only reports both; labgrade compares them. The student's
// numbers are never trusted for anything else.
#pragma once

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "matmul_harness.h"

namespace labkit {

// How a case runs a host function of the student's that it records and replays (lab 02's
// host_run.cuh): kDirect records and replays in this process; kRecord records only, writing the
// plan to `plan_path`; kReplay replays the plan it finds there, calling none of the function.
struct QueryRecording {
  RunMode mode = RunMode::kDirect;
  std::string plan_path;
};

// A replay run found no plan it can use for the case (the record run died on it, or left
// something else): the case reports case_status::kNotRecorded, and labgrade the record's end.
struct NotRecorded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What one query case found: per quantity the student's value, the kit's value, and known wrong
// answers with their usual cause, so that a mismatch can be explained.
class QueryValues {
 public:
  struct Hint {
    double value;
    std::string cause;
  };
  struct Entry {
    std::string name;
    double student = 0;
    double expected = 0;
    std::vector<Hint> hints;
    bool expected_here = true;  // false: labgrade works the expected value out (answer())
  };

  // `image`: what a replay of the student's recorded work may use (from labgrade's request; null
  // when it sent none), for a lab that records a host function of the student's and replays it.
  // `recording`: how a recorded host function runs (direct when absent).
  explicit QueryValues(const Params& params, const replay::StudentImage* image = nullptr,
                       QueryRecording recording = {})
      : params_(params), image_(image), recording_(std::move(recording)) {}

  // The case's parameter `name`; `fallback` when the lab gave none.
  long long param(const std::string& name, long long fallback) const {
    const auto it = params_.find(name);
    return it == params_.end() ? fallback : it->second;
  }
  void compare(const std::string& name, double student, double expected) {
    entries_.push_back({name, student, expected, {}});
  }
  // The student's value alone, for a case whose expected value labgrade works out itself (lab.yaml
  // drawn.expected_by): worked out here, it would be in this process, where the student's code can
  // copy it into its own answer (a red-team pass hooked the library's write() to do so).
  void answer(const std::string& name, double student) {
    entries_.push_back({name, student, std::numeric_limits<double>::quiet_NaN(), {}, false});
  }
  // A wrong answer that `name` takes when the student made a known mistake (say, left out a limit).
  // Ignored when it equals the expected value: then it is no mistake.
  void hint(const std::string& name, double wrong, std::string cause) {
    for (Entry& e : entries_)
      if (e.name == name && wrong != e.expected) e.hints.push_back({wrong, std::move(cause)});
  }
  // A parameter of the case as the kit's expected values were worked out for it, read where the
  // kit used it after the student's call returned. The student's code runs in this process and
  // can rewrite the harness's copies while it runs (a red-team pass zeroed a copy of the device's
  // limits on the stack); labgrade compares these with the case it asked for, so that such a
  // change shows instead of grading a case other than the one drawn.
  void worked_out_for(const std::string& name, long long value) { worked_out_for_[name] = value; }
  // The kit's own runtime call failed (an error of the student's making, such as a kernel that
  // cannot be launched, or a sticky error): the case reports it instead of values.
  void fail(std::string error, std::string detail) {
    error_ = std::move(error);
    detail_ = std::move(detail);
  }

  const replay::StudentImage* student_image() const { return image_; }
  const QueryRecording& recording() const { return recording_; }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::map<std::string, long long>& worked_out_for() const { return worked_out_for_; }
  const std::string& error() const { return error_; }
  const std::string& detail() const { return detail_; }

 private:
  const Params& params_;
  const replay::StudentImage* image_;
  QueryRecording recording_;
  std::vector<Entry> entries_;
  std::map<std::string, long long> worked_out_for_;
  std::string error_, detail_;
};

using QueryFn = void (*)(const Params& params, QueryValues& values);

struct QueryExercise {
  const char* id;
  QueryFn fn;
};

// A lab's query exercises (labs/<lab>/harness.cu). Labs without any need not define it.
std::vector<QueryExercise> lab_queries();

}  // namespace labkit
