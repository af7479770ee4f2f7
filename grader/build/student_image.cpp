#include "student_image.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "resource_report.h"

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

// The address of the program image's start (`__executable_start`), or -1 where nm listed none.
long long ImageStart(const std::vector<Symbol>& program) {
  for (const Symbol& s : program)
    if (s.name == "__executable_start") return s.address;
  return -1;
}

nlohmann::json Range(long long offset, long long size) {
  return nlohmann::json::array({offset, size});
}

}  // namespace

std::vector<ImageEntry> StudentImageEntries(const std::vector<std::string>& object_listings,
                                            const std::string& executable_listing,
                                            const std::set<std::string>& constants) {
  std::set<std::string> code, data;
  for (const std::string& listing : object_listings)
    for (const Symbol& s : ParseNm(listing)) {
      if (s.size <= 0) continue;
      if (IsCode(s.type)) code.insert(s.name);
      if (IsData(s.type)) data.insert(s.name);
    }
  const std::vector<Symbol> program = ParseNm(executable_listing);
  const long long start = ImageStart(program);
  std::map<std::string, int> copies;
  for (const Symbol& s : program) ++copies[s.name];
  std::vector<ImageEntry> entries;
  if (start < 0) return entries;  // nothing can be placed: every launch will be refused
  std::vector<Symbol> by_address = program;
  std::stable_sort(by_address.begin(), by_address.end(),
                   [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
  std::map<std::string, int> copies_so_far;
  for (const Symbol& s : by_address) {
    if (s.size <= 0 || s.address < start) continue;
    const long long offset = s.address - start;
    if (IsCode(s.type) && IsClosureRunner(s.name))
      entries.push_back(
          {ImageEntry::kRunner, s.name, false, offset, s.size, copies_so_far[s.name]++});
    if (copies[s.name] != 1) continue;
    if (IsCode(s.type) && code.count(s.name) > 0)
      entries.push_back({ImageEntry::kKernel, s.name, false, offset, s.size, 0});
    if (IsData(s.type) && data.count(s.name) > 0)
      entries.push_back(
          {ImageEntry::kVariable, s.name, constants.count(s.name) > 0, offset, s.size, 0});
  }
  return entries;
}

nlohmann::json StudentImageJson(const std::vector<ImageEntry>& entries) {
  nlohmann::json image = {{"kernels", nlohmann::json::array()},
                          {"runners", nlohmann::json::array()},
                          {"variables", nlohmann::json::array()},
                          {"constants", nlohmann::json::array()}};
  for (const ImageEntry& e : entries) {
    const char* list = e.kind == ImageEntry::kKernel   ? "kernels"
                       : e.kind == ImageEntry::kRunner ? "runners"
                                                       : "variables";
    image[list].push_back(Range(e.offset, e.size));
    if (e.constant) image["constants"].push_back(Range(e.offset, e.size));
  }
  return image;
}

nlohmann::json StudentImageFromNm(const std::vector<std::string>& object_listings,
                                  const std::string& executable_listing) {
  return StudentImageJson(StudentImageEntries(object_listings, executable_listing));
}

nlohmann::json StudentSymbolsJson(const std::vector<ImageEntry>& entries) {
  nlohmann::json symbols = nlohmann::json::object();
  for (const ImageEntry& e : entries) {
    const std::string key = e.kind == ImageEntry::kRunner ? e.name + "#" + std::to_string(e.copy)
                                                          : e.name;
    symbols[key] = {e.offset, e.size, e.kind == ImageEntry::kVariable ? "data" : "code"};
  }
  return symbols;
}

std::string StudentSymbolsPath(const std::string& executable) {
  return executable + ".symbols.json";
}

namespace {
struct SysvVariable {
  std::string name;
  long long bytes = 0;
  std::string section;
};

std::vector<SysvVariable> SysvVariables(const std::string& sysv_listing) {
  // "name|value|class|type|size|line|section", padded with blanks.
  std::vector<SysvVariable> variables;
  std::istringstream lines(sysv_listing);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '|');) {
      const auto first = field.find_first_not_of(' ');
      const auto last = field.find_last_not_of(" \r");
      f.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
    }
    if (f.size() < 7 || f[0].empty()) continue;
    try {
      variables.push_back({f[0], f[4].empty() ? 0 : std::stoll(f[4], nullptr, 16), f[6]});
    } catch (const std::exception&) {
      continue;
    }
  }
  return variables;
}
}  // namespace

std::map<std::string, long long> ConstantVariablesFromNm(const std::string& sysv_listing) {
  std::map<std::string, long long> constants;
  for (const SysvVariable& v : SysvVariables(sysv_listing))
    if (v.section.rfind(".emu_constant.", 0) == 0) constants[v.name] = v.bytes;
  return constants;
}

std::vector<std::string> ThreadLocalVariablesFromNm(const std::string& sysv_listing) {
  std::set<std::string> names;
  for (const SysvVariable& v : SysvVariables(sysv_listing))
    if (v.section.rfind(".tbss", 0) == 0 || v.section.rfind(".tdata", 0) == 0) names.insert(v.name);
  return {names.begin(), names.end()};
}

std::string ConstantMemoryExceeded(const std::map<std::string, long long>& constants) {
  long long total = 0;
  const std::pair<const std::string, long long>* largest = nullptr;
  for (const auto& entry : constants) {
    total += entry.second;
    if (largest == nullptr || entry.second > largest->second) largest = &entry;
  }
  if (total <= kConstantMemoryBytes) return "";
  return "the __constant__ variables take " + std::to_string(total) +
         " bytes, more than the 64 KiB (" + std::to_string(kConstantMemoryBytes) +
         " bytes) of constant memory a GPU has; nvcc refuses such a program too (ptxas: \"too "
         "much global constant data\"). The largest is " +
         DemangleSymbol(largest->first) + ", " + std::to_string(largest->second) +
         " bytes: keep big arrays in global memory "
         "(cudaMalloc or __device__).";
}

std::string ThreadLocalRefusal(const std::string& file, const std::vector<std::string>& names) {
  std::string listed;
  for (const std::string& name : names)
    listed += (listed.empty() ? "" : ", ") + DemangleSymbol(name);
  return file + " declares thread-local variables (" + listed +
         "): CUDA has no thread_local or __thread in device code, and the grader's CPU backend "
         "cannot count a kernel's reads of them. Keep a value per CUDA thread in a local "
         "variable, per block in __shared__ memory, and anything else in global memory.";
}

std::string StudentMapPath(const std::string& executable) { return executable + ".map"; }

std::vector<std::pair<long long, long long>> StudentDataFromMap(
    const std::string& map, const std::vector<std::string>& objects, long long image_start) {
  auto counted_section = [](const std::string& name) {
    for (const char* prefix : {".data", ".bss", ".rodata"})
      if (name.rfind(prefix, 0) == 0) return name.rfind(".rodata.cst", 0) != 0;
    return false;
  };
  const std::set<std::string> own(objects.begin(), objects.end());
  std::vector<std::pair<long long, long long>> ranges;
  std::istringstream lines(map);
  std::string line, section;
  bool in_memory_map = false;  // past "Discarded input sections" (sections the link dropped)
  while (std::getline(lines, line)) {
    if (line.rfind("Linker script and memory map", 0) == 0) in_memory_map = true;
    if (!in_memory_map) continue;
    // An input section: " NAME ADDRESS SIZE FILE", or a long NAME alone on its line and
    // "ADDRESS SIZE FILE" on the next.
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (line.size() > 1 && line[0] == ' ' && line[1] == '.' && f.size() == 1) {
      section = f[0];
      continue;
    }
    if (line.size() > 1 && line[0] == ' ' && line[1] == '.' && f.size() == 4) {
      section = f[0];
      f.erase(f.begin());
    } else if (f.size() != 3 || line[0] != ' ' || section.empty()) {
      section.clear();
      continue;
    }
    const std::string name = section;
    section.clear();
    if (!counted_section(name) || own.count(f[2]) == 0) continue;
    try {
      const long long address = std::stoll(f[0], nullptr, 16), size = std::stoll(f[1], nullptr, 16);
      if (size > 0 && address >= image_start) ranges.emplace_back(address - image_start, size);
    } catch (const std::exception&) {
      continue;
    }
  }
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

std::string StudentDataScriptPath(const std::string& executable) { return executable + ".ld"; }

Result<std::string> StudentDataScript(const std::vector<std::string>& objects) {
  // Input sections are given to the first output section whose pattern takes them, and the
  // statements of a -T script come before the default script's: the student's data lands here,
  // not in .data and .bss. Quoted names are matched whole, with no wildcard.
  std::string script =
      "/* labgrade: the student's writable data in pages of its own (student_image.h) */\n"
      "SECTIONS\n{\n  " +
      std::string(kStudentDataSection) + " ALIGN(" + std::to_string(kPageBytes) + ") :\n  {\n";
  for (const std::string& object : objects) {
    if (object.find_first_of("\"\n\\") != std::string::npos)
      return MakeError("the work folder's path (" + object +
                       ") has a character a linker script cannot quote");
    script += "    \"" + object + "\"(.data .data.* .bss .bss.* COMMON)\n";
  }
  script += "    . = ALIGN(" + std::to_string(kPageBytes) + ");\n  }\n}\nINSERT AFTER .bss;\n";
  return script;
}

std::optional<std::pair<long long, long long>> WatchedDataFromMap(const std::string& map,
                                                                  long long image_start) {
  // The output section's line: "NAME ADDRESS SIZE", or NAME alone and "ADDRESS SIZE" next.
  std::istringstream lines(map);
  std::string line;
  bool named = false;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (!f.empty() && f[0] == kStudentDataSection && line.rfind(kStudentDataSection, 0) == 0) {
      f.erase(f.begin());
      named = true;
    }
    if (!named) continue;
    if (f.size() < 2) continue;
    try {
      const long long address = std::stoll(f[0], nullptr, 16), size = std::stoll(f[1], nullptr, 16);
      if (size <= 0 || address < image_start) return std::nullopt;
      return std::make_pair(address - image_start, size);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string WriteStudentImage(ProcessRunner& runner, const std::vector<std::string>& objects,
                              const std::string& executable, const std::string& path,
                              const std::set<std::string>& constants) {
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
  const std::vector<ImageEntry> entries = StudentImageEntries(object_listings, program, constants);
  nlohmann::json image = StudentImageJson(entries);
  // CPU backend: the link wrote its map beside the program (submission_build.cpp).
  if (std::ifstream map_file(StudentMapPath(executable)); map_file) {
    const std::string map((std::istreambuf_iterator<char>(map_file)), {});
    const long long start = ImageStart(ParseNm(program));
    image["global_data"] = nlohmann::json::array();
    if (start >= 0)
      for (const auto& [offset, size] : StudentDataFromMap(map, objects, start))
        image["global_data"].push_back(Range(offset, size));
    image["watched_data"] = nlohmann::json::array();
    if (const auto watched = WatchedDataFromMap(map, start); start >= 0 && watched)
      image["watched_data"].push_back(Range(watched->first, watched->second));
  }
  std::ofstream out(path);
  out << image.dump();
  std::ofstream symbols(StudentSymbolsPath(executable));
  symbols << StudentSymbolsJson(entries).dump();
  return !out ? "cannot write " + path
              : !symbols ? "cannot write " + StudentSymbolsPath(executable) : "";
}

}  // namespace labkit
