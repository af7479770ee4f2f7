// hostile_corpus.h's reading of the corpus and its helpers.
#include "hostile_corpus.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>

namespace labkit {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Strings(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node)
    for (const auto& e : node) out.push_back(e.as<std::string>());
  return out;
}

Expectation Override(const Expectation& base, const YAML::Node& node) {
  Expectation e = base;
  if (!node) return e;
  if (node["exercise"]) e.exercise = node["exercise"].as<std::string>();
  if (node["status"]) e.status = node["status"].as<std::string>();
  if (node["message"]) e.message = Strings(node["message"]);
  if (node["known_failure"]) e.known_failure = node["known_failure"].as<std::string>();
  return e;
}

}  // namespace

void PrintTo(const HostileCase& c, std::ostream* os) { *os << c.lab << "/" << c.name; }

// The pending list: case name -> the protection it waits for.
std::map<std::string, std::string> PendingCases() {
  std::map<std::string, std::string> pending;
#ifdef LABKIT_PENDING_LIST
  std::ifstream in(LABKIT_PENDING_LIST);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(' ', colon + 1);
    pending[line.substr(0, colon)] = start == std::string::npos ? "" : line.substr(start);
  }
#endif
  return pending;
}

std::vector<HostileCase> LoadCases() {
  std::vector<HostileCase> cases;
  for (const auto& lab : fs::directory_iterator(LABKIT_HOSTILE_DIR)) {
    if (!lab.is_directory() || lab.path().filename() == "common") continue;
    for (const auto& dir : fs::directory_iterator(lab.path())) {
      const fs::path yaml = dir.path() / "expect.yaml";
      if (!fs::exists(yaml)) continue;
      const YAML::Node n = YAML::LoadFile(yaml.string());
      HostileCase c;
      c.lab = lab.path().filename().string();
      c.name = dir.path().filename().string();
      c.dir = dir.path().string();
      c.expect.exercise = n["exercise"].as<std::string>();
      c.expect.status = n["status"].as<std::string>();
      c.expect.message = Strings(n["message"]);
      if (n["known_failure"]) c.expect.known_failure = n["known_failure"].as<std::string>();
      c.cpu = Override(c.expect, n["cpu"]);
      c.gpu = Override(c.expect, n["gpu"]);
      if (n["backend"]) c.backend = n["backend"].as<std::string>();
      if (n["leftover_process"]) c.leftover_process = n["leftover_process"].as<std::string>();
      if (n["max_seconds"]) c.max_seconds = n["max_seconds"].as<double>();
      if (n["isolate"]) c.isolate = n["isolate"].as<bool>();
      if (n["needs_namespaces"]) c.needs_namespaces = n["needs_namespaces"].as<bool>();
      if (n["memory_limit_mib"]) c.memory_limit_mib = n["memory_limit_mib"].as<long long>();
      if (n["run_seconds"]) c.run_seconds = n["run_seconds"].as<double>();
      c.absent_after = Strings(n["absent_after"]);
      if (n["symbol_check"]) c.symbol_check = n["symbol_check"].as<bool>();
      if (n["in_class"]) c.in_class = n["in_class"].as<bool>();
      cases.push_back(c);
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const HostileCase& a, const HostileCase& b) { return a.name < b.name; });
  return cases;
}

// Pids of live processes called `name` (their /proc/PID/comm) whose environment mentions `marker`
// (empty: any): a case's work folder, which its commands' TMPDIR and HOME name, tells its processes
// from those of a class graded at the same time (ctest -j runs the batch test beside the cases).
std::vector<pid_t> ProcessesNamed(const std::string& name, const std::string& marker) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "comm");
    std::string comm;
    std::getline(in, comm);
    if (comm != name) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');
    if (close != std::string::npos && text.size() > close + 2 && text[close + 2] == 'Z') continue;
    if (!marker.empty()) {
      std::ifstream environ(e.path() / "environ", std::ios::binary);
      const std::string env((std::istreambuf_iterator<char>(environ)),
                            std::istreambuf_iterator<char>());
      if (env.find(marker) == std::string::npos) continue;
    }
    found.push_back(static_cast<pid_t>(std::stol(pid)));
  }
  return found;
}

// Copies a case into `dest` as a student would hand it in: one self-contained folder. Cases share
// correct code through "../../common/<header>" (correct_kernels.cuh for lab 03,
// first_kernels_correct.cuh for lab 01); the sandbox shows a submission nothing outside its own
// folder, so the header is copied in and the include made local.
void CopySubmission(const fs::path& case_dir, const fs::path& dest) {
  static const std::regex kShared(R"re("\.\./\.\./common/([A-Za-z0-9_]+\.cuh)")re");
  fs::create_directories(dest);
  for (const auto& entry : fs::directory_iterator(case_dir)) {
    if (entry.path().filename() == "expect.yaml") continue;
    fs::copy(entry.path(), dest / entry.path().filename(), fs::copy_options::recursive);
  }
  for (const auto& entry : fs::directory_iterator(dest)) {
    if (entry.path().extension() != ".cu") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch shared;
    if (!std::regex_search(text, shared, kShared)) continue;
    const std::string header = shared[1];
    text.replace(shared.position(0), shared.length(0), "\"" + header + "\"");
    std::ofstream(entry.path(), std::ios::binary) << text;
    fs::copy_file(fs::path(LABKIT_SHARED_DIR) / header, dest / header,
                  fs::copy_options::overwrite_existing);
  }
}

LabSpec LowLimits(LabSpec spec) {
  spec.limits.run_seconds = kRunSeconds;
  spec.limits.compile_seconds = kCompileSeconds;
  return spec;
}

}  // namespace labkit
