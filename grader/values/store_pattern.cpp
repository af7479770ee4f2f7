#include "store_pattern.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace labkit {

namespace {

// "row 16" or "rows 16 to 28".
std::string Span(const char* what, int64_t first, int64_t last) {
  const std::string one = std::string(what) + " " + std::to_string(first);
  if (first == last) return one;
  return std::string(what) + "s " + std::to_string(first) + " to " + std::to_string(last);
}

// Whether the unwritten elements of C are exactly those at row >= rows or column >= cols, with
// at least one of them.
bool UnwrittenExactlyBeyond(const CheckResult& check, int64_t rows, int64_t cols) {
  const Shape& s = check.shape;
  if (rows >= s.m && cols >= s.k) return false;
  for (int64_t r = 0; r < s.m; ++r)
    for (int64_t c = 0; c < s.k; ++c) {
      const ElementState state = check.state(r, c);
      if (state == ElementState::kUnchecked) continue;
      const bool beyond = r >= rows || c >= cols;
      if (beyond != (state == ElementState::kPoison)) return false;
    }
  return true;
}

}  // namespace

bool CoversC(const Shape& shape, const ThreadExtent& t) {
  return t.known() && ((t.x >= shape.k && t.y >= shape.m) || (t.x >= shape.m && t.y >= shape.k));
}

std::string GridTooSmallCause(const CheckResult& check, const ThreadExtent& t) {
  const Shape& s = check.shape;
  if (!t.known() || check.poison == 0 || check.poison == check.checked) return "";
  // Columns along x (the usual mapping), else rows along x.
  int64_t rows = std::min(s.m, t.y), cols = std::min(s.k, t.x);
  bool x_is_columns = true;
  if (!UnwrittenExactlyBeyond(check, rows, cols)) {
    rows = std::min(s.m, t.x);
    cols = std::min(s.k, t.y);
    x_is_columns = false;
    if (!UnwrittenExactlyBeyond(check, rows, cols)) return "";
  }
  std::string missing;
  if (rows < s.m) missing = Span("row", rows, s.m - 1);
  if (cols < s.k) missing += (missing.empty() ? "" : " and ") + Span("column", cols, s.k - 1);
  const bool one = (rows == s.m - 1) != (cols == s.k - 1) && (rows >= s.m || cols >= s.k);
  const std::string along_rows = x_is_columns ? "y" : "x", along_cols = x_is_columns ? "x" : "y";
  const int64_t row_threads = x_is_columns ? t.y : t.x, col_threads = x_is_columns ? t.x : t.y;
  // Enough threads for the rows on the columns' side and the other way round: the grid's two
  // sides were exchanged, not rounded down.
  const bool exchanged = col_threads >= s.m && row_threads >= s.k;
  const std::string fix =
      exchanged ? "Are m and k exchanged in the grid? Its " + along_cols +
                      " side counts blocks along C's columns ((k + TILE - 1) / TILE), its " +
                      along_rows + " side blocks along its rows ((m + TILE - 1) / TILE)."
                : "Round the number of blocks up: (m + TILE - 1) / TILE rows of blocks and "
                  "(k + TILE - 1) / TILE columns of them.";
  return "The grid is too small for C (" + std::to_string(s.m) + " x " + std::to_string(s.k) +
         "): " + t.launch + ", " + std::to_string(row_threads) + " threads along " + along_rows +
         " for C's " + std::to_string(s.m) + " rows and " + std::to_string(col_threads) +
         " along " + along_cols + " for its " + std::to_string(s.k) + " columns, so " + missing +
         (one ? " was" : " were") + " never written. " + fix;
}

std::optional<MisplacedValue> MisplacedValues(const CheckResult& check) {
  const Shape& s = check.shape;
  const std::size_t size = static_cast<std::size_t>(s.m * s.k);
  if (check.reference.size() != size || check.got.size() != size || check.bound.size() != size)
    return std::nullopt;
  constexpr int64_t kAtLeast = 4;
  int64_t wrong = 0;
  for (ElementState state : check.states) wrong += state == ElementState::kWrong;
  if (wrong < kAtLeast) return std::nullopt;
  // The right values, sorted, to find the elements a value is close to.
  std::vector<std::pair<double, std::size_t>> sorted;
  sorted.reserve(size);
  double widest = 0;
  for (std::size_t i = 0; i < size; ++i) {
    sorted.emplace_back(check.reference[i], i);
    widest = std::max(widest, check.bound[i]);
  }
  std::sort(sorted.begin(), sorted.end());
  // The element other than `self` whose right value `value` is nearest, within that element's
  // bound; none when no element's is.
  auto home_of = [&](double value, std::size_t self) -> std::optional<std::size_t> {
    std::optional<std::size_t> home;
    double nearest = 0;
    for (auto at = std::lower_bound(sorted.begin(), sorted.end(),
                                    std::make_pair(value - widest, std::size_t{0}));
         at != sorted.end() && at->first <= value + widest; ++at) {
      const double distance = std::fabs(value - at->first);
      if (at->second == self || distance > check.bound[at->second]) continue;
      if (!home || distance < nearest) home = at->second, nearest = distance;
    }
    return home;
  };
  MisplacedValue found;
  int64_t by_chance = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (check.states[i] != ElementState::kWrong) continue;
    const std::optional<std::size_t> home = home_of(check.got[i], i);
    if (!home) return std::nullopt;
    // The same search a little way off: how often a value lands near some element's by chance
    // (often, where C's values are dense, and then a match says nothing).
    by_chance += home_of(check.got[i] + 8 * widest + 1e-6 * std::fabs(check.got[i]), i) ? 1 : 0;
    if (found.count++ == 0) {
      found.row = static_cast<int64_t>(i) / s.k;
      found.col = static_cast<int64_t>(i) % s.k;
      found.from_row = static_cast<int64_t>(*home) / s.k;
      found.from_col = static_cast<int64_t>(*home) % s.k;
    }
  }
  if (by_chance * 10 > found.count) return std::nullopt;
  return found;
}

std::string MisplacedCause(const CheckResult& check, const MisplacedValue& v) {
  const int64_t others = v.count - 1;
  std::string text = "Right values in the wrong places: C at row " + std::to_string(v.row) +
                     ", column " + std::to_string(v.col) + " holds the value of row " +
                     std::to_string(v.from_row) + ", column " + std::to_string(v.from_col) +
                     (others > 0 ? ", and " + std::to_string(others) +
                                       " other wrong element(s) hold values of other elements"
                                 : "");
  if (check.poison > 0)
    text += " (" + std::to_string(check.poison) + " element(s) were never written as a result)";
  return text +
         ". The index of the store into C is wrong: C is row-major, m x k, so element "
         "(row, col) is C[row * k + col].";
}

}  // namespace labkit
