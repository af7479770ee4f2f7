#include "diagnosis.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "input_pattern.h"

namespace labkit {
namespace {

bool IsMismatch(ElementState s) {
  return s == ElementState::kWrong || s == ElementState::kNonFinite || s == ElementState::kPoison;
}

bool HasValues(const CheckResult& c) {
  const size_t n = static_cast<size_t>(c.shape.m * c.shape.k);
  return c.reference.size() == n && c.got.size() == n && c.bound.size() == n;
}

// The reference again, from A and B, when the check did not keep it.
CheckResult WithValues(const CheckResult& check, const std::vector<float>& a,
                       const std::vector<float>& b) {
  CheckResult c = check;
  const Shape s = c.shape;
  if (HasValues(c) || static_cast<int64_t>(a.size()) != s.m * s.n ||
      static_cast<int64_t>(b.size()) != s.n * s.k)
    return c;
  // Without the output there is nothing to compare: only the reference comes back, and the
  // patterns that need `got` stay off (got stays empty).
  c.reference.assign(static_cast<size_t>(s.m * s.k), 0.0);
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t col = 0; col < s.k; ++col)
        c.reference[r * s.k + col] += static_cast<double>(a[r * s.n + i]) * b[i * s.k + col];
  return c;
}

}  // namespace

std::string FormatNumber(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Inf" : "-Inf";
  const float f = static_cast<float>(x);
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string DescribeMismatch(const Mismatch& m, ToleranceModel model) {
  std::string s = "expected " + FormatNumber(m.expected) + " at row " + std::to_string(m.row) +
                  ", column " + std::to_string(m.col) + ", got ";
  if (m.poison()) return s + "NaN: never written (still the harness's fill value)";
  s += FormatNumber(m.got);
  if (m.state != ElementState::kWrong) return s;
  if (model == ToleranceModel::kExact)
    return s + " (" + std::to_string(m.ulps) + (m.ulps == 1 ? " ulp" : " ulps") + " apart)";
  char buf[64];
  std::snprintf(buf, sizeof buf, " (off by %.2g, allowed %.2g)",
                std::fabs(static_cast<double>(m.got) - m.expected), m.bound);
  return s + buf;
}

std::string TileMap(const CheckResult& check, int64_t tile, int64_t max_tiles) {
  const int64_t tiles_m = (check.shape.m + tile - 1) / tile;
  const int64_t tiles_k = (check.shape.k + tile - 1) / tile;
  if (tiles_m * tiles_k <= 1) return "";
  const int64_t show_m = std::min(tiles_m, max_tiles), show_k = std::min(tiles_k, max_tiles);
  std::string map = "Tiles of C (" + std::to_string(tile) + " x " + std::to_string(tile) +
                    " elements; # wrong, . right, ? never written):\n";
  for (int64_t tr = 0; tr < show_m; ++tr) {
    map += "  ";
    for (int64_t tc = 0; tc < show_k; ++tc) {
      bool wrong = false, unwritten = false, checked = false;
      for (int64_t r = tr * tile; r < std::min(check.shape.m, (tr + 1) * tile); ++r)
        for (int64_t c = tc * tile; c < std::min(check.shape.k, (tc + 1) * tile); ++c) {
          const ElementState s = check.state(r, c);
          checked |= s != ElementState::kUnchecked;
          wrong |= s == ElementState::kWrong || s == ElementState::kNonFinite;
          unwritten |= s == ElementState::kPoison;
        }
      map += wrong ? '#' : unwritten ? '?' : checked ? '.' : ' ';
    }
    map += '\n';
  }
  if (show_m < tiles_m || show_k < tiles_k)
    map += "  (showing the first " + std::to_string(show_m) + " x " + std::to_string(show_k) +
           " of " + std::to_string(tiles_m) + " x " + std::to_string(tiles_k) + " tiles)\n";
  return map;
}

bool NothingWritten(const CheckResult& check) {
  return check.checked > 0 && check.poison == check.checked;
}

bool SomeElementsUnwritten(const CheckResult& check) {
  return check.mismatches > 0 && check.poison == check.mismatches && check.poison < check.checked;
}

bool UnwrittenOnlyPastFullTiles(const CheckResult& check, int64_t tile) {
  const Shape& s = check.shape;
  const int64_t full_m = s.m / tile * tile, full_k = s.k / tile * tile;
  if (check.poison == 0 || tile <= 0) return false;
  for (int64_t r = 0; r < full_m; ++r)
    for (int64_t c = 0; c < full_k; ++c)
      if (check.state(r, c) == ElementState::kPoison) return false;
  return true;
}

bool FirstRowOrColumnUnwritten(const CheckResult& check) {
  const Shape& s = check.shape;
  if (check.poison == 0 || check.poison == check.checked) return false;
  // Unwritten at the edge while its neighbour one step in was written: a grid too small leaves
  // whole bands unwritten instead, neighbours included.
  auto written = [&](int64_t r, int64_t c) { return check.state(r, c) != ElementState::kPoison; };
  for (int64_t c = 0; c < s.k && s.m > 1; ++c)
    if (!written(0, c) && written(1, c)) return true;
  for (int64_t r = 0; r < s.m && s.k > 1; ++r)
    if (!written(r, 0) && written(r, 1)) return true;
  return false;
}

bool NonFiniteWritten(const CheckResult& check) { return check.non_finite > 0; }

bool OnlyPartialTilesWrong(const CheckResult& check, int64_t tile) {
  const Shape& s = check.shape;
  const int64_t full_m = s.m / tile * tile, full_k = s.k / tile * tile;
  const bool partial_m = full_m < s.m, partial_k = full_k < s.k;
  if (check.mismatches == 0 || (!partial_m && !partial_k) || full_m == 0 || full_k == 0)
    return false;
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      const bool in_partial = (partial_m && r >= full_m) || (partial_k && c >= full_k);
      if (!in_partial && IsMismatch(check.state(r, c))) return false;
    }
  return true;
}

bool LooksTransposed(const CheckResult& check) {
  const Shape& s = check.shape;
  if (check.mismatches == 0 || s.m != s.k || s.m < 2) return false;
  // Symmetric errors with a right diagonal: what C[col][row] = ... (or A/B indexed the wrong way
  // round) gives, since the diagonal is the same either way.
  bool symmetric = true;
  for (int64_t i = 0; i < s.m; ++i)
    if (IsMismatch(check.state(i, i))) symmetric = false;
  bool transposed = HasValues(check);
  for (int64_t r = 0; r < s.m && (symmetric || transposed); ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      const ElementState here = check.state(r, c), there = check.state(c, r);
      if (here == ElementState::kUnchecked || there == ElementState::kUnchecked) continue;
      if (IsMismatch(here) != IsMismatch(there)) symmetric = false;
      if (transposed) {
        const size_t at = r * s.k + c, mirror = c * s.k + r;
        const double got = check.got[at];
        if (!std::isfinite(got) || std::fabs(got - check.reference[mirror]) > check.bound[mirror])
          transposed = false;
      }
    }
  return symmetric || transposed;
}

std::optional<double> ConstantFactor(const CheckResult& check) {
  if (check.mismatches < 4 || check.non_finite + check.poison > 0 || !HasValues(check))
    return std::nullopt;
  std::optional<double> factor;
  int64_t ratios = 0;
  for (size_t i = 0; i < check.states.size(); ++i) {
    if (check.states[i] != ElementState::kWrong) continue;
    if (check.reference[i] == 0.0) return std::nullopt;
    const double f = check.got[i] / check.reference[i];
    if (!factor) factor = f;
    // Loose: the wrong values carry their own rounding errors.
    if (std::fabs(f - *factor) > 1e-3 * std::fabs(*factor)) return std::nullopt;
    ++ratios;
  }
  // A factor of 0 is wrong values of 0, which nothing accumulated twice explains.
  if (!factor || ratios < 4 || std::fabs(*factor - 1.0) < 1e-2 || std::fabs(*factor) < 1e-2)
    return std::nullopt;
  return factor;
}

std::string CauseAcrossCases(const std::vector<CaseSummary>& cases, int64_t tile) {
  for (const CaseSummary& c : cases)
    if (c.differed_between_runs)
      return "The results change from run to run on the same inputs: a race. Does every thread "
             "wait at __syncthreads() after loading the tiles, and again before they are "
             "overwritten?";
  // Fires when every failing case has the property and every passing one lacks it.
  auto only_when = [&](auto property) {
    bool any_failed = false, any_passed = false;
    for (const CaseSummary& c : cases) {
      if (c.passed && property(c.shape)) return false;
      if (!c.passed && !property(c.shape)) return false;
      (c.passed ? any_passed : any_failed) = true;
    }
    return any_failed && any_passed;
  };
  if (only_when([&](const Shape& s) { return s.n > tile; }))
    return "Wrong only when n > TILE (" + std::to_string(tile) +
           "): check the loop over tiles: its bound, and how it moves along A's row and down B's "
           "column.";
  if (only_when([&](const Shape& s) { return s.n % tile != 0; }))
    return "Wrong only when n is not a multiple of TILE (" + std::to_string(tile) +
           "): the last tile along n must be zero-filled where it runs past A and B.";
  if (only_when([&](const Shape& s) { return s.m % tile != 0 || s.k % tile != 0; }))
    return "Wrong only when m or k is not a multiple of TILE (" + std::to_string(tile) +
           "): boundary check, and partial tiles zero-filled?";
  return "";
}

// The usual cause of one case's wrong values: the first pattern that fits, in this order (the
// more direct evidence first). Each pattern is tested on its own in diagnosis_test.cpp.
std::string ValueCause(const CheckResult& check, int64_t tile, const DiagnosisOptions& options,
                       bool* definite) {
  bool unused = false;
  bool& sure = definite != nullptr ? *definite : unused;
  sure = false;
  if (check.mismatches == 0) return "";
  if (NothingWritten(check)) {
    if (!options.kernel)
      return "Nothing was written to C: does your function store every element, "
             "C[row * k + col] = sum?";
    // No launch is evidence; a launch after which C holds the fill is not: on the CPU backend the
    // fill's NaN also comes through sums that read shared memory no thread wrote.
    sure = options.launches == 0;
    if (options.launches == 0) return "Nothing was written to C: your function launched no kernel.";
    if (options.threads.known())
      return "Nothing was written to C, though " + options.threads.launch +
             ": does any thread reach its store into C? Check the condition around the store, "
             "and that the kernel writes C (not A or B).";
    return "Nothing was written to C: was the kernel launched, with the right grid?";
  }
  // What the launch and the values show comes before any pattern's guess.
  if (const std::string grid = GridTooSmallCause(check, options.threads); !grid.empty()) {
    sure = true;
    return grid;
  }
  const bool square = check.shape.m == check.shape.k;
  if (!square || !LooksTransposed(check))
    if (const auto misplaced = MisplacedValues(check)) {
      sure = true;
      return MisplacedCause(check, *misplaced);
    }
  if (SomeElementsUnwritten(check)) {
    if (FirstRowOrColumnUnwritten(check))
      return "Part of C was never written, starting at row 0 or column 0: does a condition skip "
             "index 0 (row > 0 instead of row >= 0), or is an index shifted by one?";
    const bool covered = CoversC(check.shape, options.threads);
    if (!options.threads.known() && tile > 0 && UnwrittenOnlyPastFullTiles(check, tile))
      return "Part of C was never written: is the grid large enough to cover all of C (round "
             "up: (m + TILE - 1) / TILE blocks)?";
    if (covered)
      return "Part of C was never written, inside the area the grid covers (" +
             options.threads.launch +
             "): which threads skip their store into C? Check the condition around the store.";
    return "Part of C was never written: which threads skip their store into C, and does the "
           "grid cover all of C?";
  }
  if (NonFiniteWritten(check))
    return "NaN or Inf was written into C: a sum that took in a value never set (a shared-memory "
           "tile element that no thread stored, e.g. past the edge of A or B where 0 belongs) or "
           "a division by zero?";
  // Before the transposition test: on a square C, a wrong last tile row and column is symmetric.
  if (tile > 0 && OnlyPartialTilesWrong(check, tile))
    return "Only the last, partial tiles are wrong: boundary check, and partial tiles "
           "zero-filled?";
  if (LooksTransposed(check))
    return "The result looks transposed: are the row and column indices swapped somewhere?";
  if (auto f = ConstantFactor(check))
    return "Every wrong value is " + FormatNumber(*f) +
           " times the expected one: is something accumulated twice, or an accumulator not "
           "reset to 0?";
  return "";
}

Diagnosis Diagnose(const CheckResult& check_in, const std::vector<float>& a,
                   const std::vector<float>& b, int64_t tile, const DiagnosisOptions& options) {
  const CheckResult check = WithValues(check_in, a, b);
  Diagnosis d;
  d.summary = std::to_string(check.mismatches) + " of " + std::to_string(check.checked) +
              " elements of C are wrong";
  if (check.poison > 0) d.summary += " (" + std::to_string(check.poison) + " never written)";
  d.summary += ".";
  for (size_t i = 0; i < check.first.size() && i < options.examples; ++i)
    d.examples.push_back(DescribeMismatch(check.first[i], check.model));
  if (tile > 0) d.tile_map = TileMap(check, tile, options.max_tiles);

  d.cause = ValueCause(check, tile, options, &d.definite);
  // An input read the wrong way round gives another product exactly: evidence, where the patterns
  // above are guesses (it needs the inputs, which ValueCause does not have).
  if (!d.definite)
    if (std::string input = TransposedInputCause(check, a, b); !input.empty()) {
      d.cause = std::move(input);
      d.definite = true;
    }
  d.details = d.summary + "\n";
  for (const std::string& e : d.examples) d.details += "  " + e + "\n";
  if (check.mismatches > static_cast<int64_t>(d.examples.size()) && !d.examples.empty())
    d.details += "  ...\n";
  d.details += d.tile_map;
  d.text = d.details;
  if (!d.cause.empty()) d.text += d.cause + "\n";
  return d;
}

OrderCause ClassifyOrderDifference(float first, float second, double reference, double bound) {
  auto close = [&](float x) { return std::isfinite(x) && std::fabs(x - reference) <= bound; };
  return close(first) && close(second) ? OrderCause::kSummationOrder : OrderCause::kMissingBarrier;
}

std::string OrderCauseText(OrderCause cause) {
  switch (cause) {
    case OrderCause::kSummationOrder:
      return "Both are the right sum within rounding, added in another order: do several threads "
             "add into one element of C (atomicAdd, split-k)? Their order is not fixed, so the "
             "bits are not either; give each element of C to one thread, summing i = 0, 1, ..., "
             "n - 1 in order.";
    case OrderCause::kMissingBarrier:
      break;
  }
  return "A missing __syncthreads()? Threads must wait after filling shared memory and again "
         "before overwriting it.";
}

}  // namespace labkit
