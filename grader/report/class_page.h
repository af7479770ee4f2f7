// The class page (marks/class.html) beside gradebook.csv: score histogram, pass rate per exercise,
// the most common causes of failure, the slowest and fastest speedups, and who was not graded.
// Plain HTML with inline CSS and SVG; every student-provided text is escaped.
#pragma once

#include <string>
#include <vector>

#include "gradebook.h"

namespace labkit {

std::string ClassPageHtml(const LabSpec& spec, const std::vector<GradebookRow>& rows);

}  // namespace labkit
