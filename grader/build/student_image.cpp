#include "student_image.h"

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace labkit {
namespace {

struct Symbol {
  long long address = 0;
  long long size = 0;
  char type = '?';
  std::string name;
};

// "ADDRESS [SIZE] TYPE NAME" lines.
std::vector<Symbol> ParseNm(const std::string& listing) {
  std::vector<Symbol> symbols;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (f.size() < 3 || f[f.size() - 2].size() != 1) continue;
    Symbol s;
    s.type = f[f.size() - 2][0];
    s.name = f.back();
    try {
      s.address = std::stoll(f[0], nullptr, 16);
      if (f.size() >= 4) s.size = std::stoll(f[1], nullptr, 16);
    } catch (const std::exception&) {
      continue;
    }
    symbols.push_back(s);
  }
  return symbols;
}

bool IsCode(char type) { return std::string("TtWw").find(type) != std::string::npos; }
bool IsData(char type) { return std::string("DdBbRrVv").find(type) != std::string::npos; }

// emu::detail::(anonymous namespace)::Closure<...>::run(void const*) (emu/runtime/.../launch.h).
bool IsClosureRunner(const std::string& name) {
  static const std::regex runner("^_ZN3emu6detail12_GLOBAL__N_17ClosureI.*E3runEPKv$");
  return std::regex_match(name, runner);
}

nlohmann::json Range(long long offset, long long size) {
  return nlohmann::json::array({offset, size});
}

}  // namespace

nlohmann::json StudentImageFromNm(const std::vector<std::string>& object_listings,
                                  const std::string& executable_listing) {
  std::set<std::string> code, data;
  for (const std::string& listing : object_listings)
    for (const Symbol& s : ParseNm(listing)) {
      if (s.size <= 0) continue;
      if (IsCode(s.type)) code.insert(s.name);
      if (IsData(s.type)) data.insert(s.name);
    }
  const std::vector<Symbol> program = ParseNm(executable_listing);
  long long start = -1;
  std::map<std::string, int> copies;
  for (const Symbol& s : program) {
    if (s.name == "__executable_start") start = s.address;
    ++copies[s.name];
  }
  nlohmann::json image = {{"kernels", nlohmann::json::array()},
                          {"runners", nlohmann::json::array()},
                          {"variables", nlohmann::json::array()}};
  if (start < 0) return image;  // nothing can be placed: every launch will be refused
  for (const Symbol& s : program) {
    if (s.size <= 0 || s.address < start) continue;
    const long long offset = s.address - start;
    if (IsCode(s.type) && IsClosureRunner(s.name))
      image["runners"].push_back(Range(offset, s.size));
    if (copies[s.name] != 1) continue;
    if (IsCode(s.type) && code.count(s.name) > 0) image["kernels"].push_back(Range(offset, s.size));
    if (IsData(s.type) && data.count(s.name) > 0)
      image["variables"].push_back(Range(offset, s.size));
  }
  return image;
}

std::string WriteStudentImage(ProcessRunner& runner, const std::vector<std::string>& objects,
                              const std::string& executable, const std::string& path) {
  auto listing = [&](const std::string& file, std::string& out) -> std::string {
    Command nm;
    nm.argv = {"nm", "-S", "--defined-only", file};
    nm.timeout_seconds = 60;
    nm.output_limit = 64u << 20;
    const ProcessResult r = runner.Run(nm);
    if (!r.Succeeded()) return "nm " + file + " failed: " + r.Describe();
    out = r.output;
    return "";
  };
  std::vector<std::string> object_listings(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (std::string why = listing(objects[i], object_listings[i]); !why.empty()) return why;
  std::string program;
  if (std::string why = listing(executable, program); !why.empty()) return why;
  std::ofstream out(path);
  out << StudentImageFromNm(object_listings, program).dump();
  return out ? "" : "cannot write " + path;
}

}  // namespace labkit
