#include "gpu_counters.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness_protocol.h"

namespace labkit {
namespace {

// Where each of the table's metrics goes in a launch's counts.
const std::map<std::string, long long ProfiledLaunch::*> kMetricFields = {
    {gpu_metric::kGlobalLoads, &ProfiledLaunch::global_load_instructions},
    {gpu_metric::kGlobalStores, &ProfiledLaunch::global_store_instructions},
    {gpu_metric::kSharedLoads, &ProfiledLaunch::shared_load_instructions},
    {gpu_metric::kSharedStores, &ProfiledLaunch::shared_store_instructions},
    {gpu_metric::kGlobalAtomics, &ProfiledLaunch::global_atomic_instructions},
    {gpu_metric::kGlobalReductions, &ProfiledLaunch::global_reduction_instructions},
    {gpu_metric::kAsyncCopies, &ProfiledLaunch::async_copy_instructions},
    {gpu_metric::kBulkCopyBytes, &ProfiledLaunch::bulk_copy_bytes}};

// One CSV line's fields; quotes enclose fields that hold commas ("(16, 16, 1)", "37,748,736").
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// "37,748,736" or "1048576": ncu groups digits by locale. nullopt for "n/a" and other text.
std::optional<long long> Count(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c == ',') continue;
    if (c < '0' || c > '9') return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  return std::stoll(digits);
}

// "(16, 16, 1)" -> 256; 0 when unreadable.
long long Threads(const std::string& dims) {
  long long product = 1;
  int seen = 0;
  std::string number;
  for (char c : dims + ",") {
    if (c >= '0' && c <= '9') {
      number += c;
    } else if (!number.empty()) {
      if (number.size() > 6) return 0;
      product *= std::stoll(number);
      number.clear();
      ++seen;
    }
  }
  return seen == 3 ? product : 0;
}

// Per-warp instructions as per-thread ones: times the threads a warp of a `block_threads` block
// holds on average.
long long PerThread(long long warp_instructions, long long block_threads) {
  if (block_threads <= 0) return 0;
  const long long warps = (block_threads + 31) / 32;
  return warp_instructions * block_threads / warps;
}

}  // namespace

std::optional<std::vector<ProfiledLaunch>> ParseCounterLog(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::map<std::string, std::size_t> column;
  std::vector<ProfiledLaunch> launches;
  std::map<long long, std::size_t> by_id;  // the table's launch id -> index in `launches`
  bool table = false;
  while (std::getline(lines, line)) {
    if (line.empty() || line.front() != '"') continue;  // notes, the program's output
    const std::vector<std::string> fields = CsvFields(line);
    if (!fields.empty() && fields.front() == "ID") {
      // The last table wins (when Nsight Compute wrote it, it came after anything the program
      // had written into the log).
      column.clear();
      launches.clear();
      by_id.clear();
      for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      table = column.count("Kernel Name") && column.count("Block Size") &&
              column.count("Metric Name") && column.count("Metric Value");
      continue;
    }
    if (!table) continue;
    auto field = [&](const char* name) -> std::string {
      const std::size_t i = column.at(name);
      return i < fields.size() ? fields[i] : "";
    };
    const std::optional<long long> id = Count(fields.front());
    if (!id) continue;
    auto [it, added] = by_id.emplace(*id, launches.size());
    if (added) {
      launches.push_back({field("Kernel Name"), Threads(field("Block Size"))});
    }
    ProfiledLaunch& launch = launches[it->second];
    const long long value = Count(field("Metric Value")).value_or(0);
    if (const auto slot = kMetricFields.find(field("Metric Name")); slot != kMetricFields.end())
      launch.*slot->second = value;
  }
  if (!table) return std::nullopt;
  return launches;
}

std::string CounterLogError(const std::string& log) {
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(gpu_metric::kErrorMark, 0) == 0) return line.substr(0, 300);
  return "";
}

bool CannotCountHere(const std::string& log) {
  const std::string line = CounterLogError(log);
  const std::string machine =
      std::string(gpu_metric::kErrorMark) + gpu_metric::kCannotCountHere + ":";
  return line.rfind(machine, 0) == 0;
}

CounterAccess DriverCounterAccess(const std::string& params) {
  std::ifstream in(params);
  std::string line;
  const std::string key = "RmProfilingAdminOnly:";
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream value(line.substr(key.size()));
    int admins_only = -1;
    if (!(value >> admins_only)) return CounterAccess::kUnknown;
    return admins_only == 0 ? CounterAccess::kEveryone : CounterAccess::kAdminsOnly;
  }
  return CounterAccess::kUnknown;
}

bool MakeCounterLock() {
  std::error_code ec;
  std::filesystem::create_directories(kCounterLockDir, ec);
  const std::string path = std::string(kCounterLockDir) + "/" + gpu_metric::kLockFile;
  // O_NOFOLLOW: a link left in /tmp is not followed; an existing file is only opened.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  fchmod(fd, 0644);  // whatever the umask
  close(fd);
  return true;
}

std::string LastLine(const std::string& output) {
  std::istringstream lines(output);
  std::string line, last;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.substr(0, 300);
}

MemoryAccesses AccessesOf(const ProfiledLaunch& launch) {
  MemoryAccesses a;
  const long long loads = launch.global_load_instructions + launch.global_atomic_instructions +
                          launch.async_copy_instructions;
  const long long stores = launch.global_store_instructions + launch.global_atomic_instructions +
                           launch.global_reduction_instructions;
  a.global_load_bytes = 4 * PerThread(loads, launch.block_threads) + launch.bulk_copy_bytes;
  a.global_store_bytes = 4 * PerThread(stores, launch.block_threads);
  a.shared_loads = PerThread(launch.shared_load_instructions, launch.block_threads);
  a.shared_stores = PerThread(launch.shared_store_instructions, launch.block_threads);
  return a;
}

void AttachCounts(std::vector<CaseRun>& cases, const std::vector<ProfiledLaunch>& profiled,
                  const std::vector<bool>& counted) {
  std::size_t next = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    if (!counted.empty() && (c >= counted.size() || !counted[c])) continue;
    for (LaunchInfo& l : cases[c].launches) {
      std::size_t i = next;
      while (i < profiled.size() && profiled[i].kernel != l.kernel) ++i;
      if (i == profiled.size()) continue;
      l.accesses = AccessesOf(profiled[i]);
      next = i + 1;
    }
  }
}

}  // namespace labkit
