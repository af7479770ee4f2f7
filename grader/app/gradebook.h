// What an instructor takes away from a batch: a CSV gradebook (one row per student, one column
// per exercise) and a short summary (score histogram, the most common failures).
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

std::string GradebookCsv(const LabSpec& spec, const std::vector<GradebookRow>& rows);
std::string BatchSummary(const LabSpec& spec, const std::vector<GradebookRow>& rows);

// CSV field quoting (RFC 4180): quotes doubled, the field quoted when it needs it.
std::string CsvField(const std::string& text);

}  // namespace labkit
