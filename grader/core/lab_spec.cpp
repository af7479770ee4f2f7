#include "lab_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

namespace labkit {
namespace {

int LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line < 0 ? 0 : mark.line + 1;  // yaml-cpp counts from 0
}

bool LooksNumeric(const std::string& s) {
  double d;
  return YAML::convert<double>::decode(YAML::Node(s), d);
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

struct Problem {
  int line;
  std::string message;
};

class Checker {
 public:
  explicit Checker(std::string label) : label_(std::move(label)) {}

  void Fail(const YAML::Node& at, const std::string& path, const std::string& what) {
    FailAtLine(LineOf(at), path, what);
  }
  void FailAtLine(int line, const std::string& path, const std::string& what) {
    problems_.push_back({line, label_ + ":" + std::to_string(line) + ": " + path + ": " + what});
  }
  bool ok() const { return problems_.empty(); }
  std::string Joined() {
    std::stable_sort(problems_.begin(), problems_.end(),
                     [](const Problem& a, const Problem& b) { return a.line < b.line; });
    std::string out;
    for (const Problem& p : problems_) out += (out.empty() ? "" : "\n") + p.message;
    return out;
  }

 private:
  std::string label_;
  std::vector<Problem> problems_;
};

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// A mapping whose keys have been checked against the known ones: unknown and repeated keys are
// reported once, here, and lookups afterwards are plain.
class MapView {
 public:
  // `known` empty with `free_keys`: any key is allowed (named lists such as `shapes`).
  MapView(Checker& c, const YAML::Node& node, std::string path,
          std::initializer_list<const char*> known, bool free_keys = false)
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

// [m, n, k], each >= 1.
std::optional<Shape> ReadShape(Checker& c, const YAML::Node& n, const std::string& path) {
  if (!n.IsSequence() || n.size() != 3) {
    c.Fail(n, path,
           "expected [m, n, k], got " +
               (n.IsSequence() ? "a list of " + std::to_string(n.size()) : Describe(n)));
    return std::nullopt;
  }
  std::optional<int64_t> d[3];
  for (size_t i = 0; i < 3; ++i) d[i] = ReadInt(c, n[i], Index(path, i), 1);
  if (!d[0] || !d[1] || !d[2]) return std::nullopt;
  return Shape{*d[0], *d[1], *d[2]};
}

template <class T, class F>
void IfPresent(const std::optional<YAML::Node>& n, F read, T& out) {
  if (!n) return;
  auto v = read(*n);
  if (v) out = *v;
}

std::optional<ToleranceModel> ReadModel(Checker& c, const YAML::Node& n, const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (!s) return std::nullopt;
  if (*s == "forward_error") return ToleranceModel::kForwardError;
  if (*s == "exact") return ToleranceModel::kExact;
  c.Fail(n, path, "expected forward_error or exact, got \"" + *s + "\"");
  return std::nullopt;
}

std::optional<Technique> ReadTechnique(Checker& c, const YAML::Node& n, const std::string& path) {
  MapView m(c, n, path,
            {"min_static_shared_bytes", "max_static_shared_bytes", "uses_barrier", "max_registers",
             "max_local_bytes"});
  if (!m.valid()) return std::nullopt;
  Technique t;
  auto bytes = [&](const char* key, std::optional<int64_t>& out) {
    if (auto v = m.Get(key)) out = ReadInt(c, *v, m.Path(key), 0);
  };
  bytes("min_static_shared_bytes", t.min_static_shared_bytes);
  bytes("max_static_shared_bytes", t.max_static_shared_bytes);
  bytes("max_local_bytes", t.max_local_bytes);
  if (auto v = m.Get("max_registers")) t.max_registers = ReadInt(c, *v, m.Path("max_registers"), 1);
  if (auto v = m.Get("uses_barrier")) t.uses_barrier = ReadBool(c, *v, m.Path("uses_barrier"));
  if (t.min_static_shared_bytes && t.max_static_shared_bytes &&
      *t.min_static_shared_bytes > *t.max_static_shared_bytes)
    c.Fail(*m.Get("max_static_shared_bytes"), m.Path("max_static_shared_bytes"),
           "is smaller than min_static_shared_bytes");
  return t;
}

std::vector<ShapeList> ReadShapeLists(Checker& c, const YAML::Node& n) {
  std::vector<ShapeList> lists;
  MapView m(c, n, "shapes", {}, /*free_keys=*/true);
  if (!m.valid()) return lists;
  if (m.size() == 0) c.Fail(n, "shapes", "must define at least one shape list");
  for (size_t i = 0; i < m.size(); ++i) {
    const std::string path = m.Path(m.key(i));
    if (!IsIdentifier(m.key(i), true)) {
      c.Fail(m.key_node(i), path, "a shape list's name may hold only letters, digits, '_' and '-'");
      continue;
    }
    ShapeList list{m.key(i), {}};
    const YAML::Node& v = m.value(i);
    if (!v.IsSequence() || v.size() == 0) {
      c.Fail(v, path, "expected a non-empty list of [m, n, k], got " + Describe(v));
    } else {
      for (size_t j = 0; j < v.size(); ++j)
        if (auto s = ReadShape(c, v[j], Index(path, j))) list.shapes.push_back(*s);
    }
    lists.push_back(std::move(list));
  }
  return lists;
}

std::optional<Exercise> ReadExercise(Checker& c, const YAML::Node& n, const std::string& path,
                                     const std::vector<ShapeList>& shapes,
                                     const std::set<std::string>& shape_names_seen) {
  MapView m(c, n, path,
            {"id", "title", "function", "kernel", "given", "points", "shapes", "exact_without_fma",
             "technique"});
  if (!m.valid()) return std::nullopt;
  Exercise e;
  e.line = LineOf(n);
  auto req = [&](const char* key, auto read, auto& out) {
    if (auto v = m.Require(key))
      if (auto r = read(c, *v, m.Path(key))) out = *r;
  };
  req("id", ReadName, e.id);
  req("title", ReadString, e.title);
  req("function", ReadCIdentifier, e.function);
  req("kernel", ReadCIdentifier, e.kernel);
  if (auto v = m.Require("points"))
    if (auto r = ReadInt(c, *v, m.Path("points"), 0)) e.points = *r;
  if (auto v = m.Get("given"))
    if (auto r = ReadBool(c, *v, m.Path("given"))) e.given = *r;
  if (auto v = m.Get("exact_without_fma"))
    if (auto r = ReadBool(c, *v, m.Path("exact_without_fma"))) e.exact_without_fma = *r;
  if (auto v = m.Get("technique")) e.technique = ReadTechnique(c, *v, m.Path("technique"));
  if (auto v = m.Require("shapes")) {
    if (auto r = ReadString(c, *v, m.Path("shapes"))) {
      e.shapes = *r;
      const bool defined = std::any_of(shapes.begin(), shapes.end(),
                                       [&](const ShapeList& l) { return l.name == *r; });
      // A list that exists but had errors is not reported a second time.
      if (!defined && !shape_names_seen.count(*r))
        c.Fail(*v, m.Path("shapes"), "no shape list named \"" + *r + "\" under `shapes`");
    }
  }
  return e;
}

std::optional<Speed> ReadSpeed(Checker& c, const YAML::Node& n, const std::vector<Exercise>& exs,
                               const std::set<std::string>& exercise_ids_seen) {
  MapView m(c, n, "speed",
            {"exercise", "points", "size", "input_sets", "full_at", "zero_at", "reps"});
  if (!m.valid()) return std::nullopt;
  Speed s;
  if (auto v = m.Require("exercise")) {
    if (auto r = ReadString(c, *v, m.Path("exercise"))) {
      s.exercise = *r;
      auto it = std::find_if(exs.begin(), exs.end(), [&](const Exercise& e) { return e.id == *r; });
      if (it == exs.end() && !exercise_ids_seen.count(*r))
        c.Fail(*v, m.Path("exercise"), "no exercise with id \"" + *r + "\"");
      else if (it != exs.end() && it->given)
        c.Fail(*v, m.Path("exercise"),
               "\"" + *r + "\" is given (the baseline): time an exercise the student writes");
    }
  }
  if (auto v = m.Require("points"))
    if (auto r = ReadInt(c, *v, m.Path("points"), 0)) s.points = *r;
  if (auto v = m.Require("size"))
    if (auto r = ReadShape(c, *v, m.Path("size"))) s.size = *r;
  if (auto v = m.Require("input_sets"))
    if (auto r = ReadInt(c, *v, m.Path("input_sets"), 1)) s.input_sets = *r;
  if (auto v = m.Require("full_at"))
    if (auto r = ReadNumber(c, *v, m.Path("full_at"), 0, true)) s.full_at = *r;
  if (auto v = m.Require("zero_at"))
    if (auto r = ReadNumber(c, *v, m.Path("zero_at"), 0, false)) s.zero_at = *r;
  if (auto v = m.Get("reps")) {
    MapView r(c, *v, m.Path("reps"), {"min", "max", "max_seconds", "target_spread"});
    if (r.valid()) {
      if (auto x = r.Get("min"))
        if (auto y = ReadInt(c, *x, r.Path("min"), 1)) s.reps.min = *y;
      if (auto x = r.Get("max"))
        if (auto y = ReadInt(c, *x, r.Path("max"), 1)) s.reps.max = *y;
      if (auto x = r.Get("max_seconds"))
        if (auto y = ReadNumber(c, *x, r.Path("max_seconds"), 0, true)) s.reps.max_seconds = *y;
      if (auto x = r.Get("target_spread"))
        if (auto y = ReadNumber(c, *x, r.Path("target_spread"), 0, true)) s.reps.target_spread = *y;
      if (s.reps.max < s.reps.min)
        c.Fail(*v, r.path(),
               "max (" + std::to_string(s.reps.max) + ") is smaller than min (" +
                   std::to_string(s.reps.min) + ")");
    }
  }
  return s;
}

Limits ReadLimits(Checker& c, const YAML::Node& n) {
  Limits l;
  MapView m(c, n, "limits", {"compile_seconds", "run_seconds", "output_bytes"});
  if (!m.valid()) return l;
  if (auto v = m.Require("compile_seconds"))
    if (auto r = ReadNumber(c, *v, m.Path("compile_seconds"), 0, true)) l.compile_seconds = *r;
  if (auto v = m.Require("run_seconds"))
    if (auto r = ReadNumber(c, *v, m.Path("run_seconds"), 0, true)) l.run_seconds = *r;
  if (auto v = m.Require("output_bytes"))
    if (auto r = ReadInt(c, *v, m.Path("output_bytes"), 1)) l.output_bytes = *r;
  return l;
}

Result<LabSpec> Parse(const YAML::Node& root, Checker& c) {
  LabSpec spec;
  MapView top(c, root, "",
              {"id", "title", "handout", "student_files", "interface", "harness", "tile",
               "tolerance", "exercises", "shapes", "datasets", "speed", "limits"});
  if (!top.valid()) return MakeError(c.Joined());

  if (auto v = top.Require("id"))
    if (auto r = ReadName(c, *v, "id")) spec.id = *r;
  if (auto v = top.Require("title"))
    if (auto r = ReadString(c, *v, "title")) spec.title = *r;
  if (auto v = top.Get("handout"))
    if (auto r = ReadRelativePath(c, *v, "handout")) spec.handout = *r;
  if (auto v = top.Require("student_files")) {
    if (!v->IsSequence() || v->size() == 0) {
      c.Fail(*v, "student_files", "expected a non-empty list of file names, got " + Describe(*v));
    } else {
      for (size_t i = 0; i < v->size(); ++i)
        if (auto r = ReadRelativePath(c, (*v)[i], Index("student_files", i)))
          spec.student_files.push_back(*r);
    }
  }
  if (auto v = top.Require("interface"))
    if (auto r = ReadRelativePath(c, *v, "interface")) spec.interface = *r;
  if (auto v = top.Require("harness"))
    if (auto r = ReadName(c, *v, "harness")) spec.harness = *r;
  if (auto v = top.Require("tile"))
    if (auto r = ReadInt(c, *v, "tile", 1)) spec.tile = *r;
  if (auto v = top.Require("tolerance")) {
    MapView t(c, *v, "tolerance", {"model", "nofma"});
    if (t.valid()) {
      if (auto x = t.Require("model"))
        if (auto r = ReadModel(c, *x, t.Path("model"))) spec.tolerance.model = *r;
      if (auto x = t.Require("nofma"))
        if (auto r = ReadModel(c, *x, t.Path("nofma"))) spec.tolerance.nofma = *r;
    }
  }

  // Shapes first: exercises refer to them. Names seen even when a list had errors, so that one
  // mistake is not reported twice.
  std::set<std::string> shape_names;
  if (auto v = top.Require("shapes")) {
    spec.shapes = ReadShapeLists(c, *v);
    if (v->IsMap())
      for (auto it = v->begin(); it != v->end(); ++it)
        if (it->first.IsScalar()) shape_names.insert(it->first.Scalar());
  }

  std::set<std::string> exercise_ids;
  if (auto v = top.Require("exercises")) {
    if (!v->IsSequence() || v->size() == 0) {
      c.Fail(*v, "exercises", "expected a non-empty list of exercises, got " + Describe(*v));
    } else {
      for (size_t i = 0; i < v->size(); ++i) {
        const YAML::Node& en = (*v)[i];
        if (en.IsMap() && en["id"] && en["id"].IsScalar()) {
          const std::string id = en["id"].Scalar();
          if (!exercise_ids.insert(id).second)
            c.Fail(en["id"], Index("exercises", i) + ".id",
                   "exercise id \"" + id + "\" is used twice");
        }
        if (auto e = ReadExercise(c, en, Index("exercises", i), spec.shapes, shape_names))
          spec.exercises.push_back(std::move(*e));
      }
    }
  }

  if (auto v = top.Get("datasets")) {
    if (!v->IsSequence()) {
      c.Fail(*v, "datasets", "expected a list of dataset names, got " + Describe(*v));
    } else {
      for (size_t i = 0; i < v->size(); ++i)
        if (auto r = ReadName(c, (*v)[i], Index("datasets", i))) spec.datasets.push_back(*r);
    }
  }
  if (auto v = top.Get("speed")) spec.speed = ReadSpeed(c, *v, spec.exercises, exercise_ids);
  if (auto v = top.Require("limits")) spec.limits = ReadLimits(c, *v);

  if (!c.ok()) return MakeError(c.Joined());
  return spec;
}

}  // namespace

const Exercise* LabSpec::FindExercise(const std::string& exercise_id) const {
  for (const Exercise& e : exercises)
    if (e.id == exercise_id) return &e;
  return nullptr;
}

const ShapeList* LabSpec::FindShapes(const std::string& name) const {
  for (const ShapeList& l : shapes)
    if (l.name == name) return &l;
  return nullptr;
}

int64_t LabSpec::MaxPoints() const {
  int64_t total = speed ? speed->points : 0;
  for (const Exercise& e : exercises)
    if (!e.given) total += e.points;
  return total;
}

ToleranceModel NofmaModel(const LabSpec& spec, const Exercise& exercise) {
  return spec.tolerance.nofma == ToleranceModel::kExact && exercise.exact_without_fma
             ? ToleranceModel::kExact
             : ToleranceModel::kForwardError;
}

const char* ToString(ToleranceModel model) {
  return model == ToleranceModel::kExact ? "exact" : "forward_error";
}

Result<LabSpec> ParseLabSpec(const std::string& yaml_text, const std::string& file_label) {
  Checker c(file_label);
  try {
    const YAML::Node root = YAML::Load(yaml_text);
    if (root.IsNull()) return MakeError(file_label + ": the file is empty");
    return Parse(root, c);
  } catch (const YAML::Exception& e) {
    return MakeError(file_label + ":" + std::to_string(e.mark.line + 1) +
                     ": YAML syntax error: " + e.msg);
  } catch (const std::exception& e) {
    return MakeError(file_label + ": " + e.what());
  }
}

Result<LabSpec> LoadLabSpec(const std::string& lab_dir) {
  const std::string path = lab_dir + "/lab.yaml";
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  Result<LabSpec> spec = ParseLabSpec(text.str(), path);
  if (!spec) return spec;
  std::string folder = lab_dir;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  folder = folder.substr(
      folder.find_last_of('/') == std::string::npos ? 0 : folder.find_last_of('/') + 1);
  if (spec->id != folder)
    return MakeError(path + ": id: \"" + spec->id + "\" does not match the lab's folder \"" +
                     folder + "\"");
  return spec;
}

}  // namespace labkit
