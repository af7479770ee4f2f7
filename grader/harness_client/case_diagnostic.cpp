#include "case_diagnostic.h"

#include "report_lines.h"

namespace labkit {

const nlohmann::json* EmuDiagnosticFor(const HarnessRun& run, const CaseRun& c) {
  if (run.emu_diagnostics.empty()) return nullptr;
  if (!c.reported) return &run.emu_diagnostics.back();
  for (const nlohmann::json& d : run.emu_diagnostics) {
    const std::string kernel = TextField(d, "kernel");
    for (const LaunchInfo& l : c.launches)
      if (!kernel.empty() && l.kernel == kernel) return &d;
  }
  return nullptr;
}

}  // namespace labkit
