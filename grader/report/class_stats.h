// What a batch's results add up to, computed once for the text summary and the class page: the
// score histogram, each exercise's pass rate, failures grouped by cause, the speedups measured.
#pragma once

#include <string>
#include <vector>

#include "gradebook.h"

namespace labkit {

// Failures that share an exercise (or "speed"), a status and a cause key (ExerciseResult::cause):
// the grouping never looks at the message, which differs from student to student.
struct CauseGroup {
  std::string item;    // exercise id, or "speed"
  std::string status;  // "failed", "compile_error", ...
  std::string cause;   // the cause key; the status again when none was recorded
  int count = 0;
  std::string example;  // the first line of one of the messages, for a person to read
  std::string example_student;
};

struct ExercisePassRate {
  std::string id;
  std::string title;
  int passed = 0;
  int graded = 0;
};

struct StudentSpeed {
  std::string name;
  std::string slug;
  double speedup = 0;            // over the kit's given kernel
  double reference_speedup = 0;  // the reference solution's, in the same run
  double score = 0;
  double max_score = 0;
};

struct ClassStats {
  int students = 0;
  int graded = 0;
  int not_graded = 0;
  int bins[10] = {};  // share of the points available: 0-9%, 10-19%, ..., 90-100%
  std::vector<ExercisePassRate> pass_rates;  // in lab.yaml's order, given ones left out
  std::vector<CauseGroup> causes;            // most common first
  std::vector<StudentSpeed> speeds;          // measured only, slowest first
  std::vector<std::pair<std::string, std::string>> not_graded_reasons;  // name, reason
};

ClassStats ComputeClassStats(const LabSpec& spec, const std::vector<GradebookRow>& rows);

// The first line of a message (and the next one when the first only introduces it: "wrong result
// in case 16x16x16:").
std::string FirstLine(const std::string& text);

}  // namespace labkit
