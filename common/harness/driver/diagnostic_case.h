// Tells the CPU backend which case the harness is running, so that each of its diagnostics names
// its case and labgrade attaches it to that case alone (grader/harness_client/case_diagnostic.h).
// On a GPU nothing needs it: compute-sanitizer runs one case per process.
#pragma once

#include <string>

namespace labkit {

// `id` while a case runs, "" once it is over.
void NoteDiagnosticCase(const std::string& id);

}  // namespace labkit
