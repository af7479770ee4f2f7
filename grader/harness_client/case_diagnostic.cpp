#include "case_diagnostic.h"

#include "report_lines.h"

namespace labkit {

const nlohmann::json* EmuDiagnosticFor(const std::vector<nlohmann::json>& diagnostics,
                                       const std::string& case_id, bool reported) {
  const nlohmann::json* found = nullptr;
  for (const nlohmann::json& d : diagnostics) {
    if (case_id.empty() || TextField(d, "case") != case_id) continue;
    found = &d;
    if (reported) break;
  }
  return found;
}

const nlohmann::json* EmuDiagnosticFor(const HarnessRun& run, const CaseRun& c) {
  return EmuDiagnosticFor(run.emu_diagnostics, c.id, c.reported);
}

std::vector<nlohmann::json> DiagnosticsWithPrefix(const std::vector<nlohmann::json>& diagnostics,
                                                  const std::string& prefix) {
  std::vector<nlohmann::json> mine;
  for (const nlohmann::json& d : diagnostics) {
    const std::string id = TextField(d, "case");
    if (id.size() <= prefix.size() || id.compare(0, prefix.size(), prefix) != 0) continue;
    nlohmann::json own = d;
    own["case"] = id.substr(prefix.size());
    mine.push_back(std::move(own));
  }
  return mine;
}

}  // namespace labkit
