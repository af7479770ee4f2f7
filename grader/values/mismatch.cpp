#include "mismatch.h"

#include <cmath>
#include <cstring>
#include <string>

namespace labkit {

uint32_t FloatBits(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

float FloatFromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

bool IsPoison(float x) { return FloatBits(x) == kPoisonBits; }

void CheckResult::Reset(const Shape& s, ToleranceModel m, const CheckOptions& options) {
  shape = s;
  model = m;
  checked = mismatches = non_finite = poison = 0;
  first.clear();
  const size_t count = static_cast<size_t>(s.m * s.k);
  states.assign(count, ElementState::kUnchecked);
  reference.assign(options.keep_reference ? count : 0, 0.0);
  bound.assign(options.keep_reference ? count : 0, 0.0);
  got.assign(options.keep_reference ? count : 0, 0.0f);
}

void CheckResult::Record(int64_t row, int64_t col, double expected, float value, double allowed,
                         bool right, const CheckOptions& options, uint64_t ulps) {
  const size_t at = static_cast<size_t>(row * shape.k + col);
  ++checked;
  if (!reference.empty()) {
    reference[at] = expected;
    bound[at] = allowed;
    got[at] = value;
  }
  ElementState s = ElementState::kRight;
  if (IsPoison(value)) {
    s = ElementState::kPoison;  // never passes, whatever the reference
  } else if (!std::isfinite(value)) {
    s = ElementState::kNonFinite;
  } else if (!right) {
    s = ElementState::kWrong;
  }
  states[at] = s;
  if (s == ElementState::kRight) return;
  ++mismatches;
  if (s == ElementState::kPoison) ++poison;
  if (s == ElementState::kNonFinite) ++non_finite;
  if (first.size() < options.keep_first)
    first.push_back({row, col, expected, value, allowed, s, ulps});
}

namespace {

std::string Dims(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

Status CheckSize(const char* name, const std::vector<float>& v, int64_t rows, int64_t cols) {
  if (static_cast<int64_t>(v.size()) != rows * cols)
    return MakeError(std::string(name) + " holds " + std::to_string(v.size()) +
                     " floats, expected " + std::to_string(rows * cols) + " (" + Dims(rows, cols) +
                     ")");
  return Status::Ok();
}

Status CheckFinite(const char* name, const std::vector<float>& v, int64_t cols) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      return MakeError(std::string(name) + " is not finite at row " + std::to_string(i / cols) +
                       ", column " + std::to_string(i % cols) +
                       ": inputs must be finite for the error bound to mean anything");
  return Status::Ok();
}

}  // namespace

Status ValidateProductArguments(const Shape& s, const std::vector<float>& a,
                                const std::vector<float>& b, const std::vector<float>& c,
                                const CheckOptions& options) {
  if (s.m < 1 || s.n < 1 || s.k < 1)
    return MakeError("shape " + ShapeText(s) + " has a dimension below 1");
  for (Status st :
       {CheckSize("A", a, s.m, s.n), CheckSize("B", b, s.n, s.k), CheckSize("C", c, s.m, s.k),
        CheckFinite("A", a, s.n), CheckFinite("B", b, s.k)})
    if (!st.ok()) return st;
  for (int64_t r : options.rows)
    if (r < 0 || r >= s.m)
      return MakeError("row " + std::to_string(r) + " to check is outside C's " +
                       std::to_string(s.m) + " rows");
  return Status::Ok();
}

std::vector<int64_t> RowsToCheck(const Shape& shape, const CheckOptions& options) {
  if (!options.rows.empty()) return options.rows;
  std::vector<int64_t> rows(static_cast<size_t>(shape.m));
  for (int64_t r = 0; r < shape.m; ++r) rows[static_cast<size_t>(r)] = r;
  return rows;
}

}  // namespace labkit
