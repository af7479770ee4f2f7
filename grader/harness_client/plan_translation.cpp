#include "plan_translation.h"

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace labkit {
namespace {

struct Symbol {
  int64_t offset = 0, size = 0;
  bool code = false;
};

// {"name": [offset, size, "code" | "data"]} from text; nullopt when it is not that.
std::optional<std::map<std::string, Symbol>> ParseSymbols(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  std::map<std::string, Symbol> symbols;
  for (const auto& [name, entry] : j.items()) {
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_number_integer() ||
        !entry[1].is_number_integer() || !entry[2].is_string())
      return std::nullopt;
    symbols[name] = {entry[0].get<int64_t>(), entry[1].get<int64_t>(), entry[2] == "code"};
  }
  return symbols;
}

std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<PlanTranslation> PlanTranslation::Between(const std::string& from_executable,
                                                        const std::string& to_executable) {
  const auto from = ReadText(from_executable + ".symbols.json");
  const auto to = ReadText(to_executable + ".symbols.json");
  if (!from || !to) return std::nullopt;
  return FromJson(*from, *to);
}

std::optional<PlanTranslation> PlanTranslation::FromJson(const std::string& from_symbols,
                                                         const std::string& to_symbols) {
  const auto from = ParseSymbols(from_symbols);
  const auto to = ParseSymbols(to_symbols);
  if (!from || !to) return std::nullopt;
  PlanTranslation t;
  for (const auto& [name, s] : *from)
    if (s.size > 0) t.from_[s.offset] = {{s.offset, s.size, s.code}, name};
  for (const auto& [name, s] : *to) t.to_[name] = {s.offset, s.size, s.code};
  return t;
}

std::optional<int64_t> PlanTranslation::Offset(int64_t offset) const {
  auto it = from_.upper_bound(offset);
  if (it == from_.begin()) return std::nullopt;
  --it;
  const auto& [place, name] = it->second;
  if (offset >= place.offset + place.size) return std::nullopt;
  const auto there = to_.find(name);
  if (there == to_.end() || there->second.code != place.code) return std::nullopt;
  // A function's code differs between the builds: only its start (a kernel, a runner) is the same
  // place. A variable's bytes are laid out alike in both, or it has another size.
  if (place.code ? offset != place.offset : there->second.size != place.size) return std::nullopt;
  return there->second.offset + (offset - place.offset);
}

bool PlanTranslation::Translate(replay::Plan& plan) const {
  auto translate = [&](int64_t& offset) {
    if (offset < 0) return true;  // no image reference here
    const std::optional<int64_t> there = Offset(offset);
    if (there) offset = *there;
    return there.has_value();
  };
  for (replay::Op& op : plan.ops) {
    if (!translate(op.image) || !translate(op.runner)) return false;
    for (replay::Relocation& r : op.relocations)
      if (!r.device.known() && !translate(r.image)) return false;
  }
  return true;
}

bool TranslatePlanFile(const PlanTranslation& translation, const std::string& from_path,
                       const std::string& to_path, std::size_t max_bytes) {
  // Only the size is looked at here: ReadPlanFile refuses a link and anything but a file.
  struct stat st {};
  if (::lstat(from_path.c_str(), &st) != 0 || static_cast<std::size_t>(st.st_size) > max_bytes)
    return false;
  replay::Plan plan;
  if (!replay::ReadPlanFile(from_path, plan).empty()) return false;
  return translation.Translate(plan) && replay::WritePlanFile(to_path, plan);
}

}  // namespace labkit
