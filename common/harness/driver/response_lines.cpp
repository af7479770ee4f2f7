#include "response_lines.h"

#include <cstdint>

namespace labkit {

using nlohmann::json;

json launches_json(const std::vector<LaunchRecord>& records) {
  json launches = json::array();
  for (const LaunchRecord& l : records) {
    launches.push_back({{"kernel", l.kernel},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"dynamic_shared_bytes", l.dynamic_shared_bytes}});
    for (const auto& [name, count] : l.accesses) launches.back()["accesses"][name] = count;
  }
  return launches;
}

json outcome_json(const CaseOutcome& o) {
  json j = {{"status", o.status}};
  if (!o.error.empty()) j["error"] = o.error;
  if (!o.detail.empty()) j["detail"] = o.detail;
  j["launches"] = launches_json(o.launches);
  json transfers = json::array();
  for (const TransferRecord& t : o.transfers)
    transfers.push_back({{"call", t.call}, {"kind", TransferKindName(t.kind)}, {"bytes", t.bytes}});
  j["transfers"] = transfers;
  json buffers = json::array();
  for (const BufferRecord& b : o.buffers)
    buffers.push_back(
        {{"name", b.name}, {"address", std::uint64_t(b.address)}, {"bytes", b.bytes}});
  j["buffers"] = buffers;
  return j;
}

json query_case_json(const std::string& id, const QueryValues& v) {
  const char* status = v.error().empty() ? case_status::kOk : case_status::kCudaError;
  json line = {{"type", "case"}, {"id", id}, {"status", status}};
  if (!v.error().empty()) {
    line["error"] = v.error();
    line["detail"] = v.detail();
  }
  json values = json::object();
  for (const auto& e : v.entries()) {
    json hints = json::array();
    for (const auto& h : e.hints) hints.push_back({{"value", h.value}, {"cause", h.cause}});
    values[e.name] = {{"student", e.student}, {"expected", e.expected}, {"hints", hints}};
  }
  line["values"] = values;
  return line;
}

}  // namespace labkit
