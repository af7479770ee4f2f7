// Where C's values went, judged from evidence rather than guessed from a pattern: the threads the
// launch had (a grid too small leaves exactly what lies beyond them unwritten), and values that
// are right for another element of C (a store at the wrong index). A "never written" element
// alone says neither: these name the cause where the data shows it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mismatch.h"

namespace labkit {

// The threads of the one launch a case made, along x and y (grid times block), and the launch in
// words for a message ("tiledAny was launched with a grid of 1 x 1 x 1 blocks of 16 x 16 x 1
// threads"). Unknown (x or y 0) when the case made several launches, none, or one with z > 1.
struct ThreadExtent {
  int64_t x = 0, y = 0;
  std::string launch;
  bool known() const { return x > 0 && y > 0; }
};

// The elements never written are exactly those beyond the threads along x and y (columns along x
// and rows along y, or the other way round), and some are: the grid is too small. The cause in
// words, or "".
std::string GridTooSmallCause(const CheckResult& check, const ThreadExtent& threads);

// Whether the threads along x and y reach every element of C, either way round.
bool CoversC(const Shape& shape, const ThreadExtent& threads);

// A wrong element of C that holds the right value of another one.
struct MisplacedValue {
  int64_t row = 0, col = 0;            // where it was stored (the first such element)
  int64_t from_row = 0, from_col = 0;  // where it belongs
  int64_t count = 0;                   // wrong elements, each holding another element's value
};

// At least four elements of C hold wrong finite values, and every one of them is the right value
// of another element (within that element's bound, the nearest such taken as its home): the
// values were stored at wrong indices. Where C's values are so dense that a value moved a little
// way off also lands near some element's in more than one case of ten, a match says nothing and
// the pattern is not believed. Needs the check's values (CheckOptions::keep_reference).
std::optional<MisplacedValue> MisplacedValues(const CheckResult& check);

// The cause for MisplacedValues in words.
std::string MisplacedCause(const CheckResult& check, const MisplacedValue& misplaced);

}  // namespace labkit
