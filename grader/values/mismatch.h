// mismatch: what a comparison of an output matrix C (m x k) with its reference produces, shared by
// the forward-error check (tolerance.h) and the bit-exact check (exactness.h), and read by the
// diagnosis (diagnosis.h).
#pragma once

#include <cstdint>
#include <vector>

#include "lab_spec.h"

namespace labkit {

// The harness fills every output with 0xFF bytes before the student's code runs, so an element that
// still holds this NaN was (almost always) never written. On the GPU, arithmetic on a NaN gives the
// canonical NaN 0x7FFFFFFF, never this pattern; on the CPU emulator a NaN read from never-written
// (0xFF-poisoned) shared memory propagates with its bits, so there it can also mean "computed from
// shared memory that was never written".
constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;

uint32_t FloatBits(float x);
float FloatFromBits(uint32_t bits);
bool IsPoison(float x);

enum class ElementState : uint8_t {
  kRight,      // within the tolerance (or bit-equal)
  kWrong,      // finite but outside the tolerance
  kNonFinite,  // NaN or Inf that is not the poison pattern
  kPoison,     // the harness's fill value: never written
  kUnchecked,  // left out (CheckOptions::rows)
};

struct Mismatch {
  int64_t row = 0;
  int64_t col = 0;
  double expected = 0;  // the reference: exact-product sum in double, or the float sequential sum
  float got = 0;
  double bound = 0;  // the largest allowed |got - expected|; 0 in the exact model
  ElementState state = ElementState::kWrong;
  uint64_t ulps = 0;  // exact model only: UlpDistance(got, expected)
  bool poison() const { return state == ElementState::kPoison; }
};

struct CheckOptions {
  size_t keep_first = 10;      // mismatches kept in CheckResult::first (all are counted)
  bool keep_reference = true;  // keep per-element reference, bound and got (for the diagnosis)
  std::vector<int64_t> rows;   // rows of C to check; empty: all. Large timed outputs use a sample.
};

struct CheckResult {
  Shape shape;  // C is shape.m x shape.k
  ToleranceModel model = ToleranceModel::kForwardError;
  int64_t checked = 0;               // elements compared
  int64_t mismatches = 0;            // elements not right (wrong + non-finite + poison)
  int64_t non_finite = 0;            // of which NaN/Inf other than the poison
  int64_t poison = 0;                // of which the poison pattern
  std::vector<Mismatch> first;       // the first keep_first mismatches in row-major order
  std::vector<ElementState> states;  // m * k, row-major
  std::vector<double> reference;     // m * k when keep_reference, else empty
  std::vector<double> bound;         // m * k when keep_reference, else empty
  std::vector<float> got;            // m * k when keep_reference, else empty

  bool passed() const { return mismatches == 0; }
  ElementState state(int64_t row, int64_t col) const { return states[row * shape.k + col]; }

  // Starts a result for `shape`: every element kUnchecked.
  void Reset(const Shape& s, ToleranceModel m, const CheckOptions& options);
  // Records one compared element.
  void Record(int64_t row, int64_t col, double expected, float value, double allowed, bool right,
              const CheckOptions& options, uint64_t ulps = 0);
};

// Checks the sizes of A (m x n), B (n x k) and C (m x k), that the inputs are finite, and that
// CheckOptions::rows are in range. Message names the matrix: "A holds 840 floats, expected 841
// (29x29)".
Status ValidateProductArguments(const Shape& shape, const std::vector<float>& a,
                                const std::vector<float>& b, const std::vector<float>& c,
                                const CheckOptions& options);

// The rows to check: options.rows, or 0..m-1.
std::vector<int64_t> RowsToCheck(const Shape& shape, const CheckOptions& options);

}  // namespace labkit
