#include "yaml_fields.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace labkit {
namespace yaml_fields {

namespace {
bool LooksNumeric(const std::string& s) {
  double d;
  return YAML::convert<double>::decode(YAML::Node(s), d);
}

}  // namespace

int LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line < 0 ? 0 : mark.line + 1;  // yaml-cpp counts from 0
}

// What a node is, for "expected X, got Y".
std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      return LooksNumeric(s) ? s : "\"" + s + "\"";
    }
    default:
      return "an undefined value";
  }
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::optional<std::string> ReadString(Checker& c, const YAML::Node& n, const std::string& path) {
  if (!n.IsScalar()) {
    c.Fail(n, path, "expected a string, got " + Describe(n));
    return std::nullopt;
  }
  if (n.Scalar().empty()) {
    c.Fail(n, path, "must not be empty");
    return std::nullopt;
  }
  return n.Scalar();
}

std::optional<int64_t> ReadInt(Checker& c, const YAML::Node& n, const std::string& path,
                               int64_t min) {
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < min) {
    const std::string kind = min == 0   ? "a non-negative integer"
                             : min == 1 ? "a positive integer"
                                        : "an integer >= " + std::to_string(min);
    c.Fail(n, path, "expected " + kind + ", got " + Describe(n));
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// A finite number; > min when `exclusive`, else >= min.
std::optional<double> ReadNumber(Checker& c, const YAML::Node& n, const std::string& path,
                                 double min, bool exclusive) {
  double v = 0;
  const bool good = n.IsScalar() && YAML::convert<double>::decode(n, v) && std::isfinite(v) &&
                    (exclusive ? v > min : v >= min);
  if (!good) {
    std::ostringstream kind;
    kind << "a number " << (exclusive ? "> " : ">= ") << min;
    c.Fail(n, path, "expected " + kind.str() + ", got " + Describe(n));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> ReadBool(Checker& c, const YAML::Node& n, const std::string& path) {
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) {
    c.Fail(n, path, "expected true or false, got " + Describe(n));
    return std::nullopt;
  }
  return v;
}

bool IsIdentifier(const std::string& s, bool allow_dash) {
  if (s.empty()) return false;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || (allow_dash && ch == '-');
    if (!ok) return false;
  }
  return true;
}

// Names used in file names and messages: letters, digits, '_' and '-'.
std::optional<std::string> ReadName(Checker& c, const YAML::Node& n, const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (s && !IsIdentifier(*s, true)) {
    c.Fail(n, path, "\"" + *s + "\" may hold only letters, digits, '_' and '-'");
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> ReadCIdentifier(Checker& c, const YAML::Node& n,
                                           const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (s && (!IsIdentifier(*s, false) || ((*s)[0] >= '0' && (*s)[0] <= '9'))) {
    c.Fail(n, path, "\"" + *s + "\" is not a C++ identifier");
    return std::nullopt;
  }
  return s;
}

// A path inside the lab or submission folder: relative, without "..".
std::optional<std::string> ReadRelativePath(Checker& c, const YAML::Node& n,
                                            const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (!s) return s;
  const bool escapes = (*s)[0] == '/' || *s == ".." || s->rfind("../", 0) == 0 ||
                       s->find("/../") != std::string::npos ||
                       (s->size() >= 3 && s->compare(s->size() - 3, 3, "/..") == 0);
  if (escapes) {
    c.Fail(n, path, "\"" + *s + "\" must be a relative path that stays inside its folder");
    return std::nullopt;
  }
  return s;
}

void Checker::Fail(const YAML::Node& at, const std::string& path, const std::string& what) {
  FailAtLine(LineOf(at), path, what);
}

std::string Checker::Joined() {
  std::stable_sort(problems_.begin(), problems_.end(),
                   [](const Problem& a, const Problem& b) { return a.line < b.line; });
  std::string out;
  for (const Problem& p : problems_) out += (out.empty() ? "" : "\n") + p.message;
  return out;
}

MapView::MapView(Checker& c, const YAML::Node& node, std::string path,
                 std::initializer_list<const char*> known, bool free_keys)
    : c_(c), node_(node), path_(std::move(path)) {
  if (!node.IsMap()) {
    c_.Fail(node, path_.empty() ? "(top level)" : path_,
            "expected a mapping, got " + Describe(node));
    valid_ = false;
    return;
  }
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    const std::string name = key.IsScalar() ? key.Scalar() : "?";
    if (!free_keys && std::find_if(known.begin(), known.end(),
                                   [&](const char* k) { return name == k; }) == known.end()) {
      std::string what = "unknown key";
      const char* best = nullptr;
      size_t best_d = 3;  // suggest only close names
      for (const char* k : known) {
        const size_t d = EditDistance(name, k);
        if (d < best_d) best_d = d, best = k;
      }
      if (best) what += std::string(" (did you mean \"") + best + "\"?)";
      c_.Fail(key, Join(path_, name), what);
      continue;
    }
    if (!seen.insert(name).second) {
      c_.Fail(key, Join(path_, name), "key given twice");
      continue;
    }
    entries_.push_back({name, it->second});
    keys_.push_back(key);
  }
}

}  // namespace yaml_fields
}  // namespace labkit
