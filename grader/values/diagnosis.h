// diagnosis: from a failed comparison to the message a student reads. Three parts:
//   - the first few wrong elements: "expected 12.5 at row 17, column 3, got 0.0";
//   - a map of C's TILE x TILE tiles: '#' wrong, '.' right, '?' never written (at most 32 x 32
//     tiles are drawn; the message says when it is cropped);
//   - the usual cause of the pattern, when one is recognised.
// Each pattern is a small function of its own, tested on its own. They are hints, worded as
// questions: a pattern can have another cause.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mismatch.h"
#include "store_pattern.h"

namespace labkit {

struct DiagnosisOptions {
  size_t examples = 3;     // wrong elements quoted
  int64_t max_tiles = 32;  // tile map is cropped to max_tiles x max_tiles
  bool kernel = true;      // false: the exercise is a host function (lab 01's `host`)
  ThreadExtent threads;    // the case's one launch, when known (store_pattern.h)
  int64_t launches = -1;   // how many kernels the case launched; -1: not known
};

struct Diagnosis {
  std::string summary;                // "12 of 841 elements of C are wrong (3 never written)."
  std::vector<std::string> examples;  // "expected 12.5 at row 17, column 3, got 0.0"
  std::string tile_map;               // several lines; empty when C is a single tile
  std::string cause;                  // "" when no pattern is recognised
  // The cause rests on evidence (the launch, values that belong elsewhere), not on a pattern
  // that can have other causes: it outranks the hints across cases.
  bool definite = false;
  std::string details;                // summary, examples and tile map (no cause)
  std::string text;                   // all of the above, for the student
};

// `a` and `b` are the inputs; they are used only when `check` kept no reference
// (CheckOptions::keep_reference false), to recompute it. Empty vectors are fine then too: the
// patterns that need values are skipped.
Diagnosis Diagnose(const CheckResult& check, const std::vector<float>& a,
                   const std::vector<float>& b, int64_t tile, const DiagnosisOptions& options = {});

// --- Parts, exposed for tests and for other messages ---

// A number as a student would write it, with as few digits as tell it apart as a float:
// 12.5, 0.0, -3.0, 0.1, 1e-08, NaN, Inf.
std::string FormatNumber(double x);

// "expected 12.5 at row 17, column 3, got 0.0" plus, when useful, the size of the error.
std::string DescribeMismatch(const Mismatch& m, ToleranceModel model);

// The tile map with its legend; empty when C is one tile.
std::string TileMap(const CheckResult& check, int64_t tile, int64_t max_tiles = 32);

// --- Patterns within one case (each needs check.mismatches > 0 to fire) ---

// Every element still holds the harness's fill value.
bool NothingWritten(const CheckResult& check);
// Every wrong element holds the fill value, but some elements were written.
bool SomeElementsUnwritten(const CheckResult& check);
// Every unwritten element lies past the last full tile row or column: what a grid rounded down
// leaves (needs SomeElementsUnwritten).
bool UnwrittenOnlyPastFullTiles(const CheckResult& check, int64_t tile);
// An element of row 0 (column 0) was never written while the one below (beside) it was: a guard
// or an index off by one at the low edge.
bool FirstRowOrColumnUnwritten(const CheckResult& check);
// NaN or Inf written into C (not the fill value: the element was stored).
bool NonFiniteWritten(const CheckResult& check);
// Only the last, partial tile row (m % tile != 0) and/or tile column (k % tile != 0) is wrong,
// and C has at least one full tile that is right.
bool OnlyPartialTilesWrong(const CheckResult& check, int64_t tile);
// C is square and equals the transpose of the reference (within its bounds), or its error pattern
// is symmetric while some elements are right.
bool LooksTransposed(const CheckResult& check);
// Every wrong element is the same multiple f of its expected value (f != 1, at least 4 of them);
// returns f.
std::optional<double> ConstantFactor(const CheckResult& check);

// The usual cause of one case's wrong values (the first of the patterns above that fits), or "".
// `definite`, when given, is set when the cause rests on evidence (Diagnosis::definite).
std::string ValueCause(const CheckResult& check, int64_t tile, const DiagnosisOptions& options = {},
                       bool* definite = nullptr);

// --- Patterns across the cases of one exercise ---

struct CaseSummary {
  Shape shape;
  bool passed = false;
  bool differed_between_runs = false;  // same inputs, two runs, different bits
};

// The race / tile-loop / inner-partial-tile / boundary hints, or "" when none fits.
std::string CauseAcrossCases(const std::vector<CaseSummary>& cases, int64_t tile);

// --- An element that changed with the order in which a block's threads ran ---

enum class OrderCause {
  // A value far from the product (or not finite): threads read shared memory before it was
  // written or after it was overwritten.
  kMissingBarrier,
  // Both values within the forward-error bound of the product: the same terms added in another
  // order, as when several threads add into one element (atomicAdd, split-k). No barrier fixes it.
  kSummationOrder,
};

// `first`, `second`: the element in two thread orders; `reference` and `bound`: the exact product
// and its forward-error bound (tolerance.h).
OrderCause ClassifyOrderDifference(float first, float second, double reference, double bound);

// The usual cause of an order difference, worded for the student.
std::string OrderCauseText(OrderCause cause);

}  // namespace labkit
