#include "process_memory.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace labkit {
namespace fs = std::filesystem;

namespace {

std::string ReadProcFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

long long PageBytes() {
  static const long long bytes = sysconf(_SC_PAGESIZE);
  return bytes;
}

}  // namespace

long long ResidentBytesFromStatm(const std::string& statm, long long page_bytes) {
  std::istringstream fields(statm);
  long long size = 0, resident = 0;
  if (!(fields >> size >> resident) || resident < 0) return -1;
  return resident * page_bytes;
}

long long ProportionalBytesFromSmapsRollup(const std::string& smaps_rollup) {
  std::istringstream lines(smaps_rollup);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Pss:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    long long kib = -1;
    std::string unit;
    if (!(fields >> kib >> unit) || kib < 0 || unit != "kB") return -1;
    return kib * 1024;
  }
  return -1;
}

pid_t ParentFromStat(const std::string& stat) {
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  // After "pid (comm)": " state ppid ...".
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  long long parent = -1;
  if (!(fields >> state >> parent)) return -1;
  return static_cast<pid_t>(parent);
}

std::vector<pid_t> ProcessTree(pid_t root, const std::map<pid_t, pid_t>& parent_of) {
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, parent] : parent_of) children.emplace(parent, pid);
  std::vector<pid_t> tree = {root};
  // A pid reused between two reads of /proc could close a loop: visit each pid once.
  std::set<pid_t> seen = {root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it)
      if (seen.insert(it->second).second) tree.push_back(it->second);
  }
  return tree;
}

TreeMemory MeasureProcessTree(pid_t root) {
  std::map<pid_t, pid_t> parent_of;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t parent = ParentFromStat(ReadProcFile(entry.path().string() + "/stat"));
    if (parent >= 0) parent_of[static_cast<pid_t>(std::atol(name.c_str()))] = parent;
  }
  TreeMemory memory;
  for (const pid_t pid : ProcessTree(root, parent_of)) {
    // A process that ended between the two reads has nothing resident any more.
    const std::string proc = "/proc/" + std::to_string(pid);
    long long bytes = ProportionalBytesFromSmapsRollup(ReadProcFile(proc + "/smaps_rollup"));
    if (bytes < 0) bytes = ResidentBytesFromStatm(ReadProcFile(proc + "/statm"), PageBytes());
    if (bytes < 0) continue;
    memory.resident_bytes += bytes;
    memory.pids.push_back(pid);
  }
  return memory;
}

bool CanMeasureResidentMemory() {
  return ResidentBytesFromStatm(ReadProcFile("/proc/self/statm"), PageBytes()) > 0;
}

}  // namespace labkit
