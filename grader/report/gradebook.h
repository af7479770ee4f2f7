// What an instructor takes away from a batch: a CSV gradebook (one row per student, one column
// per exercise, numbers only in number columns) and a short text summary (score histogram, the
// most common causes of failure). The full feedback of each student is in a file of its own
// (feedback.h); the class page (class_page.h) shows the same as the summary, drawn.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "journal.h"
#include "lab_spec.h"
#include "report.h"

namespace labkit {

struct GradebookRow {
  JournalEntry entry;
  std::optional<GradeResult> result;  // absent when the submission was not graded
};

// Columns: student, status, one per exercise (points), speed (points; empty when not measured),
// total, max_total, speedup (over the given kernel; empty when not measured), causes (the cause
// keys of what failed, "exercise:cause; ..."), feedback (the student's feedback.txt, relative to
// the gradebook), note (why not graded, or a problem met on the way).
std::string GradebookCsv(const LabSpec& spec, const std::vector<GradebookRow>& rows);
std::string BatchSummary(const LabSpec& spec, const std::vector<GradebookRow>& rows);

// CSV field quoting (RFC 4180): quotes doubled, the field quoted when it needs it.
std::string CsvField(const std::string& text);

// Where a student's feedback lies, relative to the batch's output folder.
std::string FeedbackPath(const std::string& slug, const std::string& extension);

}  // namespace labkit
