// Shapes drawn from the seed (docs/THREAT_MODEL.md): the counted case of `technique.measured`,
// and graded cases beside the shapes lab.yaml lists. A function sees only the shapes it is called
// at; were the counted case the one call at a shape lab.yaml never lists, the function could launch
// for it alone a kernel that no other check sees. So every drawn case is graded like the listed
// ones (both builds, the thread orders, the sanitizers), the counted one among them, and an
// exercise that is counted has a second case drawn from the counted shape's own range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exercise_grader.h"

namespace labkit {

// A value drawn from `state` (advanced): a multiple of `unit` above `base`, up to half as much
// again, never `base` itself. The counted cases' sizes, so that code cannot tell them beforehand.
int64_t SeededAbove(uint64_t& state, int64_t base, int64_t unit);

// `technique.measured`'s counted shape: each side above the rule's shape, up to half as much again
// (SeededAbove), n even, every side a multiple of TILE where the exercise's listed shapes all are.
Shape CountedShapeOf(const GradeEnv& env, const Exercise& ex);

// `technique.measured`: the one case on which every launch's memory accesses are counted, at
// CountedShapeOf (`run_id` names the exercise and its parameters). It is one of DrawnCases, with
// the same id and inputs, and graded like them.
MatrixCase CountedCase(const GradeEnv& env, const Exercise& ex, const std::string& run_id);

// The graded cases an exercise gets beside its listed shapes and the datasets, with their inputs:
// one shape within the range of its list (at most kLargestDrawnSide a side, a multiple of TILE or
// a square where the list's shapes all are, never one the list or a dataset has); and where the
// exercise is counted, the counted shape and one more from the same range, in an order drawn from
// the seed. Ids continue the listed cases' numbering (`tiled_5`, `tiled_6`...), so no id says
// which case is counted.
std::vector<MatrixCase> DrawnCases(const GradeEnv& env, const Exercise& ex);

// `measured`'s counted case of a query exercise: the rule's `params` with `per` drawn from the
// seed (SeededAbove, in multiples of the rule's `step`), so that a kernel cannot stage for a
// published size alone.
ParamSet CountedParamsOf(const GradeEnv& env, const Exercise& exercise);

// The parameter sets a query exercise is graded on beside lab.yaml's: first `drawn`'s sets, drawn
// from its ranges (none a published set where the ranges allow), so that answers kept for the
// published cases fail; then, where `measured` counts it, the counted set and one more drawn from
// the same range, in an order drawn from the seed. The counted call is then graded like every
// call, and is not the only one above the published sizes.
std::vector<ParamSet> DrawnParamsOf(const GradeEnv& env, const Exercise& exercise);

// The largest side of the case drawn within an exercise's list: several blocks and tile phases,
// and cheap to run many times on the CPU backend.
inline constexpr int64_t kLargestDrawnSide = 64;

}  // namespace labkit
