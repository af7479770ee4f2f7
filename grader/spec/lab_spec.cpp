#include "lab_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "spec_readers.h"
#include "yaml_fields.h"

namespace labkit {

using namespace yaml_fields;  // the Read* functions and their helpers

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

namespace {

std::optional<ToleranceModel> ReadModel(Checker& c, const YAML::Node& n, const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (!s) return std::nullopt;
  if (*s == "forward_error") return ToleranceModel::kForwardError;
  if (*s == "exact") return ToleranceModel::kExact;
  c.Fail(n, path, "expected forward_error or exact, got \"" + *s + "\"");
  return std::nullopt;
}

// The harness driver that runs the lab's exercises. The kit has one
// (common/harness/driver/harness_main.cpp, which a lab's harness table plugs into), so a lab that
// names another was written for a kit that is not this one: better said at load time than met as a
// link error.
std::optional<std::string> ReadHarness(Checker& c, const YAML::Node& n, const std::string& path) {
  std::optional<std::string> s = ReadName(c, n, path);
  if (s && *s != "matmul") {
    c.Fail(n, path, "expected matmul (the kit's one harness driver, common/harness), got \"" + *s +
                        "\"");
    return std::nullopt;
  }
  return s;
}

std::optional<ParamSet> ReadParamSet(Checker& c, const YAML::Node& n, const std::string& path);

std::optional<QueryMeasured> ReadQueryMeasured(Checker& c, const YAML::Node& n,
                                               const std::string& path) {
  static const char* const kLimits[] = {
      "max_global_loads_per_element", "max_global_stores_per_element",
      "min_shared_loads_per_element", "min_shared_stores_per_element"};
  MapView m(c, n, path,
            {"params", "per", "step", kLimits[0], kLimits[1], kLimits[2], kLimits[3],
             "executes_barrier"});
  if (!m.valid()) return std::nullopt;
  QueryMeasured t;
  m.Required("params", ReadParamSet, t.params);
  m.Required("per", ReadCIdentifier, t.per);
  m.Optional("step", IntAtLeast(1), t.step);
  m.Optional(kLimits[0], NumberAtLeast(0), t.max_global_loads_per_element);
  m.Optional(kLimits[1], NumberAtLeast(0), t.max_global_stores_per_element);
  m.Optional(kLimits[2], NumberAtLeast(0), t.min_shared_loads_per_element);
  m.Optional(kLimits[3], NumberAtLeast(0), t.min_shared_stores_per_element);
  m.Optional("executes_barrier", ReadBool, t.executes_barrier);
  if (!t.per.empty() && m.Get("params") && !t.params.count(t.per))
    c.Fail(*m.Get("per"), m.Path("per"), "names no parameter of `params`");
  else if (!t.per.empty() && t.params.count(t.per) && t.params.at(t.per) < 1)
    c.Fail(*m.Get("per"), m.Path("per"), "names a parameter below 1");
  if (std::none_of(std::begin(kLimits), std::end(kLimits),
                   [&](const char* key) { return m.Get(key).has_value(); }) &&
      !m.Get("executes_barrier"))
    c.Fail(n, path, "names nothing to check: give a limit per element or executes_barrier");
  return t;
}

// [low, high] or [low, high, step]: whole numbers, low <= high, step >= 1.
std::optional<ParamRange> ReadParamRange(Checker& c, const YAML::Node& n, const std::string& path) {
  if (!n.IsSequence() || (n.size() != 2 && n.size() != 3)) {
    c.Fail(n, path, "expected [low, high] or [low, high, step], got " + Describe(n));
    return std::nullopt;
  }
  const std::optional<int64_t> low = ReadInt(c, n[0], Index(path, 0), 0);
  const std::optional<int64_t> high = ReadInt(c, n[1], Index(path, 1), 0);
  const std::optional<int64_t> step = n.size() == 3 ? ReadInt(c, n[2], Index(path, 2), 1) : 1;
  if (!low || !high || !step) return std::nullopt;
  if (*high < *low) {
    c.Fail(n, path,
           "high (" + std::to_string(*high) + ") is below low (" + std::to_string(*low) + ")");
    return std::nullopt;
  }
  return ParamRange{*low, *high, *step};
}

// {parameter: range, ...}, at least one.
std::optional<std::map<std::string, ParamRange>> ReadParamRanges(Checker& c, const YAML::Node& n,
                                                                 const std::string& path) {
  MapView m(c, n, path, {}, /*free_keys=*/true);
  if (!m.valid()) return std::nullopt;
  if (m.size() == 0) c.Fail(n, path, "name at least one parameter");
  std::map<std::string, ParamRange> ranges;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsIdentifier(m.key(i), false)) {
      c.Fail(m.key_node(i), m.Path(m.key(i)), "a parameter's name must be a C identifier");
      continue;
    }
    if (auto range = ReadParamRange(c, m.value(i), m.Path(m.key(i)))) ranges[m.key(i)] = *range;
  }
  return ranges;
}

std::optional<DrawnExpected> ReadDrawnExpected(Checker& c, const YAML::Node& n,
                                               const std::string& path) {
  const std::optional<std::string> s = ReadString(c, n, path);
  if (!s) return std::nullopt;
  if (*s == "occupancy_formula") return DrawnExpected::kOccupancyFormula;
  if (*s == "largest_square_block") return DrawnExpected::kLargestSquareBlock;
  if (*s == "suggested_block_side") return DrawnExpected::kSuggestedBlockSide;
  c.Fail(n, path,
         "expected occupancy_formula, largest_square_block or suggested_block_side, got " +
             Describe(n));
  return std::nullopt;
}

std::optional<QueryDrawn> ReadQueryDrawn(Checker& c, const YAML::Node& n, const std::string& path) {
  MapView m(c, n, path, {"count", "ranges", "expected_by", "known", "kernel"});
  if (!m.valid()) return std::nullopt;
  QueryDrawn d;
  m.Required("count", IntAtLeast(1), d.count);
  m.Required("ranges", ReadParamRanges, d.ranges);
  m.Optional("expected_by", ReadDrawnExpected, d.expected_by);
  m.Optional("known", ReadParamSet, d.known);
  m.Optional("kernel", ReadName, d.kernel);
  if (d.expected_by == DrawnExpected::kSuggestedBlockSide && d.kernel.empty())
    c.Fail(n, path, "expected_by: suggested_block_side needs `kernel`, the student's kernel");
  return d;
}

std::optional<FasterThan> ReadFasterThan(Checker& c, const YAML::Node& n,
                                         const std::string& path) {
  MapView m(c, n, path, {"exercise", "by"});
  if (!m.valid()) return std::nullopt;
  FasterThan f;
  m.Required("exercise", ReadName, f.exercise);
  m.Required("by", NumberAbove(0), f.by);
  return f;
}

// The `faster_than.exercise` node of the exercise `id` (for a message's line).
YAML::Node FasterThanNode(const YAML::Node& exercises, const std::string& id) {
  for (const YAML::Node& e : exercises)
    if (e.IsMap() && e["id"] && e["id"].Scalar() == id) return e["faster_than"]["exercise"];
  return exercises;
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

std::optional<ExerciseKind> ReadKind(Checker& c, const YAML::Node& n, const std::string& path) {
  std::optional<std::string> s = ReadString(c, n, path);
  if (!s) return std::nullopt;
  if (*s == "matmul") return ExerciseKind::kMatmul;
  if (*s == "query") return ExerciseKind::kQuery;
  c.Fail(n, path, "expected matmul or query, got \"" + *s + "\"");
  return std::nullopt;
}

// {name: non-negative integer, ...}; the names are C identifiers (the harness looks them up).
std::optional<ParamSet> ReadParamSet(Checker& c, const YAML::Node& n, const std::string& path) {
  MapView m(c, n, path, {}, /*free_keys=*/true);
  if (!m.valid()) return std::nullopt;
  ParamSet set;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsIdentifier(m.key(i), false)) {
      c.Fail(m.key_node(i), m.Path(m.key(i)), "a parameter's name must be a C identifier");
      continue;
    }
    if (auto v = ReadInt(c, m.value(i), m.Path(m.key(i)), 0)) set[m.key(i)] = *v;
  }
  return set;
}

// {name: relative tolerance, ...}, at least one.
std::optional<std::vector<QueryValueSpec>> ReadValueSpecs(Checker& c, const YAML::Node& n,
                                                          const std::string& path) {
  MapView m(c, n, path, {}, /*free_keys=*/true);
  if (!m.valid()) return std::nullopt;
  if (m.size() == 0) c.Fail(n, path, "name at least one value to compare");
  std::vector<QueryValueSpec> specs;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsIdentifier(m.key(i), false)) {
      c.Fail(m.key_node(i), m.Path(m.key(i)), "a value's name must be a C identifier");
      continue;
    }
    if (auto t = ReadNumber(c, m.value(i), m.Path(m.key(i)), 0, /*exclusive=*/false))
      specs.push_back({m.key(i), *t});
  }
  return specs;
}

// Keys that mean something for one kind only: present with the other kind is an error.
void RejectKeys(const MapView& m, Checker& c, std::initializer_list<const char*> keys,
                const char* why) {
  for (const char* key : keys)
    if (auto v = m.Get(key)) c.Fail(*v, m.Path(key), why);
}

std::optional<Exercise> ReadExercise(Checker& c, const YAML::Node& n, const std::string& path,
                                     const std::vector<ShapeList>& shapes,
                                     const std::set<std::string>& shape_names_seen) {
  MapView m(c, n, path,
            {"id", "title", "kind", "function", "kernel", "given", "points", "shapes",
             "exact_without_fma", "technique", "params", "values", "drawn", "measured",
             "faster_than", "recorded"});
  if (!m.valid()) return std::nullopt;
  Exercise e;
  e.line = LineOf(n);
  m.Required("id", ReadName, e.id);
  m.Optional("kind", ReadKind, e.kind);
  m.Required("title", ReadString, e.title);
  m.Required("function", ReadCIdentifier, e.function);
  m.Optional("kernel", ReadCIdentifier, e.kernel);
  m.Required("points", IntAtLeast(0), e.points);
  m.Optional("given", ReadBool, e.given);
  if (e.kind == ExerciseKind::kQuery) {
    RejectKeys(m, c, {"shapes", "exact_without_fma", "technique"},
               "only for kind: matmul (a query exercise multiplies no matrices)");
    m.Required("params", ListOf(ReadParamSet, "parameter mappings", true), e.params);
    m.Required("values", ReadValueSpecs, e.values);
    m.Optional("drawn", ReadQueryDrawn, e.drawn);
    m.Optional("measured", ReadQueryMeasured, e.measured);
    m.Optional("faster_than", ReadFasterThan, e.faster_than);
    m.Optional("recorded", ReadBool, e.recorded);
    return e;
  }
  RejectKeys(m, c, {"values", "drawn", "faster_than"}, "only for kind: query");
  RejectKeys(m, c, {"recorded"}, "only for kind: query (a matmul function is always recorded)");
  RejectKeys(m, c, {"measured"}, "only for kind: query (a matmul exercise's is technique.measured)");
  m.Optional("exact_without_fma", ReadBool, e.exact_without_fma);
  m.Optional("technique", ReadTechnique, e.technique);
  m.Optional("params", ListOf(ReadParamSet, "parameter mappings", true), e.params);
  m.Required("shapes", ReadString, e.shapes);
  const bool defined = std::any_of(shapes.begin(), shapes.end(),
                                   [&](const ShapeList& l) { return l.name == e.shapes; });
  // A list that exists but had errors is not reported a second time.
  if (!e.shapes.empty() && !defined && !shape_names_seen.count(e.shapes))
    c.Fail(*m.Get("shapes"), m.Path("shapes"),
           "no shape list named \"" + e.shapes + "\" under `shapes`");
  return e;
}

std::optional<Speed> ReadSpeed(Checker& c, const YAML::Node& n, const std::vector<Exercise>& exs,
                               const std::set<std::string>& exercise_ids_seen) {
  MapView m(c, n, "speed",
            {"exercise", "points", "size", "input_sets", "full_at", "zero_at", "reps"});
  if (!m.valid()) return std::nullopt;
  Speed s;
  m.Required("exercise", ReadString, s.exercise);
  if (!s.exercise.empty()) {
    auto it =
        std::find_if(exs.begin(), exs.end(), [&](const Exercise& e) { return e.id == s.exercise; });
    if (it == exs.end() && !exercise_ids_seen.count(s.exercise))
      c.Fail(*m.Get("exercise"), m.Path("exercise"), "no exercise with id \"" + s.exercise + "\"");
    else if (it != exs.end() && it->given)
      c.Fail(*m.Get("exercise"), m.Path("exercise"),
             "\"" + s.exercise + "\" is given (the baseline): time an exercise the student writes");
    else if (it != exs.end() && it->kind == ExerciseKind::kQuery)
      c.Fail(*m.Get("exercise"), m.Path("exercise"),
             "\"" + s.exercise + "\" is a query exercise: time one that multiplies matrices");
  }
  m.Required("points", IntAtLeast(0), s.points);
  m.Required("size", ReadShape, s.size);
  m.Required("input_sets", IntAtLeast(1), s.input_sets);
  m.Required("full_at", NumberAbove(0), s.full_at);
  m.Required("zero_at", NumberAtLeast(0), s.zero_at);
  if (auto v = m.Get("reps")) {
    MapView r(c, *v, m.Path("reps"), {"min", "max", "max_seconds", "target_spread"});
    if (r.valid()) {
      r.Optional("min", IntAtLeast(1), s.reps.min);
      r.Optional("max", IntAtLeast(1), s.reps.max);
      r.Optional("max_seconds", NumberAbove(0), s.reps.max_seconds);
      r.Optional("target_spread", NumberAbove(0), s.reps.target_spread);
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
  m.Required("compile_seconds", NumberAbove(0), l.compile_seconds);
  m.Required("run_seconds", NumberAbove(0), l.run_seconds);
  m.Required("output_bytes", IntAtLeast(1), l.output_bytes);
  return l;
}

Result<LabSpec> Parse(const YAML::Node& root, Checker& c) {
  LabSpec spec;
  MapView top(c, root, "",
              {"id", "title", "handout", "student_files", "interface", "harness", "tile",
               "tolerance", "exercises", "shapes", "datasets", "speed", "limits"});
  if (!top.valid()) return MakeError(c.Joined());

  top.Required("id", ReadName, spec.id);
  top.Required("title", ReadString, spec.title);
  top.Optional("handout", ReadRelativePath, spec.handout);
  top.Required("student_files", ListOf(ReadRelativePath, "file names", true), spec.student_files);
  top.Required("interface", ReadRelativePath, spec.interface);
  top.Required("harness", ReadHarness, spec.harness);
  top.Required("tile", IntAtLeast(1), spec.tile);
  if (auto v = top.Require("tolerance")) {
    MapView t(c, *v, "tolerance", {"model", "nofma"});
    if (t.valid()) {
      t.Required("model", ReadModel, spec.tolerance.model);
      t.Required("nofma", ReadModel, spec.tolerance.nofma);
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

  // `faster_than` names another exercise, which may come later in the file.
  for (const Exercise& e : spec.exercises)
    if (e.faster_than && !exercise_ids.count(e.faster_than->exercise))
      c.Fail(FasterThanNode(*top.Get("exercises"), e.id),
             "exercises." + e.id + ".faster_than.exercise",
             "no exercise with id \"" + e.faster_than->exercise + "\"");

  top.Optional("datasets", ListOf(ReadName, "dataset names", false), spec.datasets);
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

std::string SpacedShapeText(const Shape& s) {
  return std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k);
}

std::string ShapeText(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string ParamText(const ParamSet& params) {
  std::string text;
  for (const auto& [name, value] : params)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
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
  std::string dir = lab_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string path = dir + "/lab.yaml";
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  Result<LabSpec> spec = ParseLabSpec(text.str(), path);
  if (!spec) return spec;
  const size_t slash = dir.find_last_of('/');
  const std::string folder = slash == std::string::npos ? dir : dir.substr(slash + 1);
  if (spec->id != folder)
    return MakeError(path + ": id: \"" + spec->id + "\" does not match the lab's folder \"" +
                     folder + "\"");
  return spec;
}

Result<LabSpec> OnlyExercise(const LabSpec& spec, const std::string& id) {
  const Exercise* ex = spec.FindExercise(id);
  if (ex == nullptr) {
    std::string ids;
    for (const Exercise& e : spec.exercises) ids += (ids.empty() ? "" : ", ") + e.id;
    return MakeError("lab " + spec.id + " has no exercise '" + id + "' (it has " + ids + ")");
  }
  LabSpec one = spec;
  one.exercises = {*ex};
  if (one.speed && one.speed->exercise != id) one.speed.reset();
  return one;
}

}  // namespace labkit
