#include "drawn_shapes.h"

#include <algorithm>
#include <map>
#include <string>

#include "exercise_checks.h"
#include "inputs.h"

namespace labkit {

namespace {

// One step of `state` (an LCG), then a multiple of `unit` from `low` to `high`, both multiples.
int64_t SeededBetween(uint64_t& state, int64_t low, int64_t high, int64_t unit) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  const uint64_t choices = static_cast<uint64_t>((high - low) / unit + 1);
  return low + static_cast<int64_t>((state >> 33) % choices) * unit;
}

// What the exercise's listed shapes have in common, which a drawn shape keeps: every side a
// multiple of TILE (the exercise is only asked for those), all squares no larger than the largest
// (lab 01's one-block kernel), and the largest side.
struct ListTraits {
  bool multiples_only = false;
  bool squares_only = false;
  int64_t largest_side = 0;
};

ListTraits TraitsOf(const GradeEnv& env, const Exercise& ex) {
  ListTraits traits;
  const ShapeList* list = env.spec.FindShapes(ex.shapes);
  if (list == nullptr || list->shapes.empty()) return traits;
  traits.multiples_only = env.spec.tile > 0;
  traits.squares_only = true;
  for (const Shape& s : list->shapes) {
    traits.multiples_only = traits.multiples_only && IsTileMultiple(s, env.spec.tile);
    traits.squares_only = traits.squares_only && s.m == s.n && s.n == s.k;
    traits.largest_side = std::max({traits.largest_side, s.m, s.n, s.k});
  }
  return traits;
}

// A shape of the counted shape's range, drawn from `key`: the counted shape's own for the key
// CountedShapeOf uses, another of the same law for any other key.
Shape ShapeNearMeasured(const GradeEnv& env, const Exercise& ex, const std::string& key) {
  const Shape& published = ex.technique->measured->shape;
  // Each side one more than lab.yaml's up to half as much again, never lab.yaml's own. n is even,
  // so that tiles of 2 load exactly half of what the rows kernel loads; for an exercise whose
  // shapes are all multiples of TILE, every side is one too.
  const int64_t step = TraitsOf(env, ex).multiples_only ? env.spec.tile : 1;
  uint64_t state = MatrixSeed(env.seed, key, "shape");
  auto side = [&](int64_t base, int64_t multiple) {
    return SeededAbove(state, base, std::max(step, multiple));
  };
  Shape s;
  s.m = side(published.m, 1);
  s.n = side(published.n, step % 2 == 0 ? step : 2 * step);
  s.k = side(published.k, 1);
  return s;
}

// A shape within the range of the exercise's list, drawn from `key`: each side from the smallest
// step up to the list's largest side or kLargestDrawnSide, whichever is less.
Shape ShapeWithinList(const GradeEnv& env, const Exercise& ex, const std::string& key) {
  const ListTraits traits = TraitsOf(env, ex);
  const int64_t step = traits.multiples_only ? env.spec.tile : 1;
  const int64_t high =
      std::max(step, std::min(traits.largest_side, kLargestDrawnSide) / step * step);
  uint64_t state = MatrixSeed(env.seed, key, "shape");
  Shape s;
  s.m = SeededBetween(state, step, high, step);
  s.n = traits.squares_only ? s.m : SeededBetween(state, step, high, step);
  s.k = traits.squares_only ? s.m : SeededBetween(state, step, high, step);
  return s;
}

// The first of a few draws (`draw` with key, key + "1", ...) that is none of `taken`: a shape
// already graded would only be the same call again. After the few, the last draw stands.
template <typename Draw>
Shape DrawNew(const std::string& key, const std::vector<Shape>& taken, Draw draw) {
  Shape s;
  for (int attempt = 0; attempt < 8; ++attempt) {
    s = draw(attempt == 0 ? key : key + std::to_string(attempt));
    if (std::find(taken.begin(), taken.end(), s) == taken.end()) break;
  }
  return s;
}

// A case of `shape` under `id`, with inputs drawn as every case's are (from the seed and the id).
MatrixCase WithInputs(const GradeEnv& env, const std::string& id, const Shape& shape) {
  MatrixCase c;
  c.id = id;
  c.shape = shape;
  ProductInputs in = GenerateProductInputs(env.seed, id, shape, ValueKind::kFullMantissa);
  c.A = std::move(in.a);
  c.B = std::move(in.b);
  return c;
}

// A set drawn from lab.yaml's `drawn` ranges under `key`: each parameter its range's low plus a
// multiple of its step, from a state of its own.
ParamSet DrawnFromRanges(const GradeEnv& env, const std::string& key,
                         const std::map<std::string, ParamRange>& ranges) {
  ParamSet set;
  for (const auto& [name, range] : ranges) {
    uint64_t state = MatrixSeed(env.seed, key, name);
    const int64_t span = (range.high - range.low) / range.step * range.step;
    set[name] = range.low + SeededBetween(state, 0, span, range.step);
  }
  return set;
}

// lab.yaml's `drawn` sets, each the first of a few draws that no published or earlier drawn set
// has (a set already graded would only be the same call again); after the few, the last stands.
std::vector<ParamSet> DrawnFromRanges(const GradeEnv& env, const Exercise& ex) {
  std::vector<ParamSet> drawn;
  if (!ex.drawn) return drawn;
  std::vector<ParamSet> taken = ex.params;
  for (int64_t i = 0; i < ex.drawn->count; ++i) {
    ParamSet set;
    for (int attempt = 0; attempt < 8; ++attempt) {
      set =
          DrawnFromRanges(env, ex.id + "_drawn" + std::to_string(i) + "_" + std::to_string(attempt),
                          ex.drawn->ranges);
      if (std::find(taken.begin(), taken.end(), set) == taken.end()) break;
    }
    taken.push_back(set);
    drawn.push_back(std::move(set));
  }
  return drawn;
}

}  // namespace

int64_t SeededAbove(uint64_t& state, int64_t base, int64_t unit) {
  const int64_t low = (base / unit + 1) * unit;  // above lab.yaml's value
  const int64_t high = std::max(low, (base + base / 2) / unit * unit);
  return SeededBetween(state, low, high, unit);
}

Shape CountedShapeOf(const GradeEnv& env, const Exercise& ex) {
  // From the seed, so that the function cannot know the counted shape and launch tiles for it
  // alone (the rows kernel everywhere else).
  return ShapeNearMeasured(env, ex, ex.id + "_counted");
}

std::vector<MatrixCase> DrawnCases(const GradeEnv& env, const Exercise& ex) {
  const ShapeList* list = env.spec.FindShapes(ex.shapes);
  std::vector<Shape> taken = list != nullptr ? list->shapes : std::vector<Shape>{};
  const std::size_t taken_by_list = taken.size();
  for (const Dataset& d : env.datasets) taken.push_back(d.shape);
  std::vector<Shape> shapes = {DrawNew(ex.id + "_within", taken, [&](const std::string& key) {
    return ShapeWithinList(env, ex, key);
  })};
  taken.push_back(shapes.front());
  if (ex.technique && ex.technique->measured) {
    // The counted shape is never lab.yaml's (SeededAbove), and it must be the one counted: no
    // redraw for it.
    const Shape counted = CountedShapeOf(env, ex);
    taken.push_back(counted);
    const Shape beside = DrawNew(ex.id + "_beside_counted", taken, [&](const std::string& key) {
      return ShapeNearMeasured(env, ex, key);
    });
    // Which of the two comes first is drawn too: the order of the calls does not say either.
    uint64_t state = MatrixSeed(env.seed, ex.id + "_beside_counted", "order");
    const bool counted_first = SeededBetween(state, 0, 1, 1) == 0;
    shapes.push_back(counted_first ? counted : beside);
    shapes.push_back(counted_first ? beside : counted);
  }
  std::vector<MatrixCase> cases;
  for (const Shape& s : shapes)
    cases.push_back(WithInputs(env, ex.id + "_" + std::to_string(taken_by_list + cases.size()), s));
  return cases;
}

MatrixCase CountedCase(const GradeEnv& env, const Exercise& ex, const std::string& run_id) {
  const Shape counted = CountedShapeOf(env, ex);
  std::vector<MatrixCase> drawn = DrawnCases(env, ex);
  const auto it = std::find_if(drawn.begin(), drawn.end(),
                               [&](const MatrixCase& c) { return c.shape == counted; });
  // DrawnCases holds the counted shape of every counted exercise; the fallback is for safety only.
  MatrixCase c = it != drawn.end() ? std::move(*it) : WithInputs(env, ex.id + "_counted", counted);
  c.exercise = run_id;
  return c;
}

ParamSet CountedParamsOf(const GradeEnv& env, const Exercise& ex) {
  const QueryMeasured& rule = *ex.measured;
  ParamSet params = rule.params;
  uint64_t state = MatrixSeed(env.seed, ex.id + "_counted", rule.per);
  params[rule.per] = SeededAbove(state, rule.params.at(rule.per), rule.step);
  return params;
}

std::vector<ParamSet> DrawnParamsOf(const GradeEnv& env, const Exercise& ex) {
  std::vector<ParamSet> sets = DrawnFromRanges(env, ex);
  if (!ex.measured) return sets;
  const QueryMeasured& rule = *ex.measured;
  const ParamSet counted = CountedParamsOf(env, ex);
  ParamSet beside = rule.params;
  // A few draws for one that is not the counted set (the range may hold only one value).
  for (int attempt = 0; attempt < 8 && (attempt == 0 || beside == counted); ++attempt) {
    uint64_t state =
        MatrixSeed(env.seed, ex.id + "_beside_counted" + std::to_string(attempt), rule.per);
    beside[rule.per] = SeededAbove(state, rule.params.at(rule.per), rule.step);
  }
  uint64_t state = MatrixSeed(env.seed, ex.id + "_beside_counted", "order");
  const bool counted_first = beside == counted || SeededBetween(state, 0, 1, 1) == 0;
  sets.push_back(counted_first ? counted : beside);
  if (beside != counted) sets.push_back(counted_first ? beside : counted);
  return sets;
}

}  // namespace labkit
