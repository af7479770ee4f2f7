// yaml_fields: checked reading of YAML values, for lab_spec. Every problem is reported with the
// file, the line and the key path ("lab.yaml:21: exercises[1].points: expected a non-negative
// integer, got \"ten\""), unknown and repeated keys included, and reading goes on so that all
// problems are reported at once. Internal to grader_core: only lab_spec.cpp and tests include it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace labkit {
namespace yaml_fields {

struct Problem {
  int line;
  std::string message;
};

// Collects problems found in one file: "<label>:<line>: <key path>: <what>".
class Checker {
 public:
  explicit Checker(std::string label) : label_(std::move(label)) {}

  void Fail(const YAML::Node& at, const std::string& path, const std::string& what);
  void FailAtLine(int line, const std::string& path, const std::string& what) {
    problems_.push_back({line, label_ + ":" + std::to_string(line) + ": " + path + ": " + what});
  }
  bool ok() const { return problems_.empty(); }
  // Every problem, one per line, in file order.
  std::string Joined();

 private:
  std::string label_;
  std::vector<Problem> problems_;
};

// 1-based line of a node (yaml-cpp counts from 0).
int LineOf(const YAML::Node& node);
// What a node is, for "expected X, got Y": a number as written, other scalars quoted, "a list",
// "a mapping", "nothing".
std::string Describe(const YAML::Node& node);
size_t EditDistance(const std::string& a, const std::string& b);
// "a.b" (or "b" at the top), "a[3]".
std::string Join(const std::string& path, const std::string& key);
std::string Index(const std::string& path, size_t i);
// Letters, digits, '_' (and '-' when allowed).
bool IsIdentifier(const std::string& s, bool allow_dash);

// Readers: each reads one value, reports what is wrong with it under `path`, and returns nothing
// then.
std::optional<std::string> ReadString(Checker& c, const YAML::Node& n, const std::string& path);
std::optional<int64_t> ReadInt(Checker& c, const YAML::Node& n, const std::string& path,
                               int64_t min);
// A finite number; > min when `exclusive`, else >= min.
std::optional<double> ReadNumber(Checker& c, const YAML::Node& n, const std::string& path,
                                 double min, bool exclusive);
std::optional<bool> ReadBool(Checker& c, const YAML::Node& n, const std::string& path);
// Names used in file names and messages: letters, digits, '_' and '-'.
std::optional<std::string> ReadName(Checker& c, const YAML::Node& n, const std::string& path);
std::optional<std::string> ReadCIdentifier(Checker& c, const YAML::Node& n,
                                           const std::string& path);
// A path inside the lab or submission folder: relative, without "..".
std::optional<std::string> ReadRelativePath(Checker& c, const YAML::Node& n,
                                            const std::string& path);

// A mapping whose keys have been checked against the known ones: unknown and repeated keys are
// reported once, here, and lookups afterwards are plain.
class MapView {
 public:
  // `known` empty with `free_keys`: any key is allowed (named lists such as `shapes`).
  MapView(Checker& c, const YAML::Node& node, std::string path,
          std::initializer_list<const char*> known, bool free_keys = false);

  size_t size() const { return entries_.size(); }
  const std::string& key(size_t i) const { return entries_[i].first; }
  const YAML::Node& key_node(size_t i) const { return keys_[i]; }
  const YAML::Node& value(size_t i) const { return entries_[i].second; }

  bool valid() const { return valid_; }
  const std::string& path() const { return path_; }
  std::string Path(const std::string& key) const { return Join(path_, key); }

  // The value under `key`, or nothing (no error).
  std::optional<YAML::Node> Get(const std::string& key) const {
    for (const auto& e : entries_)
      if (e.first == key) return e.second;
    return std::nullopt;
  }
  // Reads `key` with `read` (one of the Read* functions below) into `out`. Absent: "missing key"
  // for Required, `out` left at its default for Optional.
  template <class Reader, class T>
  void Required(const char* key, Reader read, T& out) const {
    if (auto v = Require(key))
      if (auto r = read(c_, *v, Path(key))) out = *r;
  }
  template <class Reader, class T>
  void Optional(const char* key, Reader read, T& out) const {
    if (auto v = Get(key))
      if (auto r = read(c_, *v, Path(key))) out = *r;
  }

  // The value under `key`; reports "missing key" at the mapping when absent.
  std::optional<YAML::Node> Require(const std::string& key) const {
    std::optional<YAML::Node> v = Get(key);
    if (!v && valid_) c_.Fail(node_, path_.empty() ? key : path_, "missing key \"" + key + "\"");
    return v;
  }

 private:
  Checker& c_;
  YAML::Node node_;
  std::string path_;
  bool valid_ = true;
  std::vector<std::pair<std::string, YAML::Node>> entries_;
  std::vector<YAML::Node> keys_;
};

// Readers with a bound, in the shape Required/Optional take.
inline auto IntAtLeast(int64_t min) {
  return [min](Checker& c, const YAML::Node& n, const std::string& path) {
    return ReadInt(c, n, path, min);
  };
}
inline auto NumberAbove(double min) {
  return [min](Checker& c, const YAML::Node& n, const std::string& path) {
    return ReadNumber(c, n, path, min, /*exclusive=*/true);
  };
}
inline auto NumberAtLeast(double min) {
  return [min](Checker& c, const YAML::Node& n, const std::string& path) {
    return ReadNumber(c, n, path, min, /*exclusive=*/false);
  };
}

// A reader of a list whose elements `read` reads; each bad element is reported on its own and
// left out.
template <class Reader>
auto ListOf(Reader read, const char* what, bool non_empty) {
  return [=](Checker& c, const YAML::Node& n, const std::string& path) {
    using T = typename decltype(read(c, n, path))::value_type;
    std::optional<std::vector<T>> out;
    if (!n.IsSequence() || (non_empty && n.size() == 0)) {
      c.Fail(n, path,
             std::string("expected a ") + (non_empty ? "non-empty " : "") + "list of " + what +
                 ", got " + Describe(n));
      return out;
    }
    out.emplace();
    for (size_t i = 0; i < n.size(); ++i)
      if (auto r = read(c, n[i], Index(path, i))) out->push_back(*r);
    return out;
  };
}

}  // namespace yaml_fields
}  // namespace labkit
