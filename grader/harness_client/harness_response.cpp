#include "harness_response.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "gpu_counters.h"
#include "inputs.h"
#include "report_lines.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadToolLog(const std::string& path) {
  auto text = ReadUntrustedFile(path, kMaxReportBytes);
  return text ? *text : "";
}

std::vector<std::string> ThreadSanitizerLogs(const std::string& dir) {
  std::vector<std::string> logs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename().string().rfind("tsan.", 0) == 0) logs.push_back(entry.path());
  std::sort(logs.begin(), logs.end());
  return logs;
}

std::string ReadThreadSanitizerLogs(const std::string& dir) {
  std::string text;
  for (const std::string& log : ThreadSanitizerLogs(dir)) text += ReadToolLog(log);
  return text;
}

std::vector<float> ReadOutput(const std::string& dir, const std::string& name, std::size_t count) {
  auto values = ReadFloatFile(dir + name, static_cast<int64_t>(count), 1);
  return values.ok() ? std::move(*values) : std::vector<float>{};
}

LaunchInfo ParseLaunch(const json& l) {
  LaunchInfo info;
  if (!l.is_object()) return info;
  const std::string kernel = TextField(l, "kernel");
  info.kernel = kernel.empty() ? "?" : kernel;
  auto dims = [&](const char* key, long long* out) {
    const auto it = l.find(key);
    if (it == l.end() || !it->is_array() || it->size() != 3) return;
    for (int d = 0; d < 3; ++d)
      if ((*it)[d].is_number_integer()) out[d] = (*it)[d].get<long long>();
  };
  dims("grid", info.grid);
  dims("block", info.block);
  const double shared = NumberField(l, "dynamic_shared_bytes");
  if (!std::isnan(shared)) info.dynamic_shared_bytes = static_cast<long long>(shared);
  const auto counts = l.find("accesses");
  if (counts != l.end() && counts->is_object()) {
    MemoryAccesses& a = info.accesses.emplace();
    namespace count = access_count;
    a.global_load_bytes = IntegerField(*counts, count::kGlobalLoadBytes, 0);
    a.warp_global_load_bytes = IntegerField(*counts, count::kWarpGlobalLoadBytes, 0);
    a.global_store_bytes = IntegerField(*counts, count::kGlobalStoreBytes, 0);
    a.shared_loads = IntegerField(*counts, count::kSharedLoads, 0);
    a.shared_stores = IntegerField(*counts, count::kSharedStores, 0);
    a.barriers = IntegerField(*counts, count::kBarriers, 0);
    a.static_shared_bytes = IntegerField(*counts, count::kStaticSharedBytes, 0);
  }
  return info;
}

std::optional<MemoryRefusal> ParseMemoryRefusal(const json& line) {
  const auto it = line.find("device_memory_refused");
  if (it == line.end() || !it->is_object()) return std::nullopt;
  MemoryRefusal refusal;
  refusal.call = TextField(*it, "call");
  refusal.bytes = IntegerField(*it, "bytes", 0);
  refusal.in_use_bytes = IntegerField(*it, "in_use_bytes", 0);
  refusal.limit_bytes = IntegerField(*it, "limit_bytes", 0);
  return refusal;
}

namespace {

// The line comes from a process the student's code ran in: a field of the wrong type reads as
// unknown rather than stopping the grader.
TransferInfo ParseTransfer(const json& t) {
  auto text = [&](const char* key) {
    const std::string value = TextField(t, key);
    return value.empty() ? "?" : value;
  };
  TransferInfo info;
  info.call = text("call");
  info.kind = text("kind");
  if (t.contains("bytes") && t["bytes"].is_number()) info.bytes = t["bytes"].get<long long>();
  return info;
}

// A buffer line of the harness's: a matrix it does not have, or an address or size that is not a
// number, leaves the buffer out (an unnamed address is reported as it is).
std::optional<HarnessBuffer> ParseBuffer(const json& b) {
  if (!b.is_object()) return std::nullopt;
  HarnessBuffer buffer;
  buffer.matrix = TextField(b, "name");
  if (buffer.matrix != "A" && buffer.matrix != "B" && buffer.matrix != "C") return std::nullopt;
  const auto address = b.find("address");
  if (address == b.end() || !address->is_number_unsigned()) return std::nullopt;
  buffer.address = address->get<std::uint64_t>();
  buffer.bytes = IntegerField(b, "bytes", -1);
  if (buffer.bytes <= 0) return std::nullopt;
  return buffer;
}

}  // namespace

void ReadResponse(const std::string& dir, HarnessRun& run) {
  for (const json& line : ReadJsonObjectLines(dir + "response.jsonl")) {
    const std::string type = TextField(line, "type");
    if (type == "device") {
      run.device = line;
    } else if (type == "done") {
      run.done = true;
    } else if (type == "error") {
      run.harness_error = TextField(line, "detail");
    } else if (type == "timing") {
      run.timing = line;
    } else if (type == "occupancy") {
      run.occupancy.push_back(line);
    } else if (type == "case") {
      for (CaseRun& r : run.cases) {
        if (r.id != TextField(line, "id")) continue;
        if (r.reported) {
          r.status = "reported_twice";
          continue;
        }
        r.reported = true;
        r.status = TextField(line, "status");
        r.error = TextField(line, "error");
        r.detail = TextField(line, "detail");
        if (line.contains("launches") && line["launches"].is_array())
          for (const json& l : line["launches"]) r.launches.push_back(ParseLaunch(l));
        if (line.contains("transfers") && line["transfers"].is_array())
          for (const json& t : line["transfers"])
            if (t.is_object()) r.transfers.push_back(ParseTransfer(t));
        if (line.contains("buffers") && line["buffers"].is_array())
          for (const json& b : line["buffers"])
            if (auto buffer = ParseBuffer(b)) r.buffers.push_back(*buffer);
        if (line.contains("values") && line["values"].is_object()) r.values = line["values"];
        if (line.contains("worked_out_for") && line["worked_out_for"].is_object())
          r.worked_out_for = line["worked_out_for"];
        r.memory_refused = ParseMemoryRefusal(line);
      }
    }
  }
}

void ReadCounters(const std::string& dir, const HarnessOptions& options, HarnessRun& run,
                  const std::vector<bool>& counted) {
  if (!options.gpu_counters) return;
  run.counter_log = ReadToolLog(dir + kCounterTable);
  if (const auto profiled = ParseCounterLog(run.counter_log)) {
    run.counted = true;
    AttachCounts(run.cases, *profiled, counted);
  }
}

}  // namespace labkit
