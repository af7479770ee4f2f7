#include "pitched_rows.h"

#include <gtest/gtest.h>

namespace lab02 {
namespace {

using labkit::replay::Op;
using labkit::replay::OpType;
using labkit::replay::Plan;
using labkit::replay::Ref;

constexpr int32_t kInput = 0, kOutput = 1;  // the host arrays' indices
constexpr int32_t kRegion = labkit::replay::kFirstAllocation;
constexpr uint64_t kRow = 33 * 4, kPitch = 512;

Op Upload(int64_t host_offset, int32_t region, int64_t device_offset, uint64_t bytes) {
  Op op;
  op.type = OpType::kHostUpload;
  op.src = Ref{kInput, host_offset};
  op.dst = Ref{region, device_offset};
  op.bytes = bytes;
  return op;
}

Op Download(int32_t region, int64_t device_offset, int64_t host_offset, uint64_t bytes) {
  Op op;
  op.type = OpType::kHostDownload;
  op.src = Ref{region, device_offset};
  op.dst = Ref{kOutput, host_offset};
  op.bytes = bytes;
  return op;
}

// cudaMallocPitch and cudaMemcpy2D: the record keeps one copy per row, `pitch` apart.
Plan Pitched(int rows) {
  Plan plan;
  for (int r = 0; r < rows; ++r) plan.ops.push_back(Upload(r * kRow, kRegion, r * kPitch, kRow));
  for (int r = 0; r < rows; ++r) plan.ops.push_back(Download(kRegion, r * kPitch, r * kRow, kRow));
  return plan;
}

TEST(PlaceRows, RowsAtThePitchArePitchedStorage) {
  const Plan plan = Pitched(5);
  for (CopyDirection d : {CopyDirection::kToDevice, CopyDirection::kToHost}) {
    const RowPlacement p = PlaceRows(plan, d == CopyDirection::kToDevice ? kInput : kOutput, d,
                                     kRow, 5, kPitch);
    EXPECT_EQ(p.rows_off_pitch, 0);
    EXPECT_EQ(p.first_spacing, static_cast<int64_t>(kPitch));
  }
}

// cudaMalloc of width x height floats and cudaMemcpy2D with width * 4 as the pitch: the rows lie
// back to back, whether copied row by row or as one block.
TEST(PlaceRows, RowsBackToBackAreNot) {
  Plan by_rows;
  for (int r = 0; r < 5; ++r) by_rows.ops.push_back(Upload(r * kRow, kRegion, r * kRow, kRow));
  Plan whole;
  whole.ops.push_back(Upload(0, kRegion, 0, 5 * kRow));
  for (const Plan& plan : {by_rows, whole}) {
    const RowPlacement p = PlaceRows(plan, kInput, CopyDirection::kToDevice, kRow, 5, kPitch);
    EXPECT_EQ(p.rows_off_pitch, 4);
    EXPECT_EQ(p.first_spacing, static_cast<int64_t>(kRow));
  }
}

TEST(PlaceRows, RowsNeverCopiedOrSplitAcrossAllocationsCount) {
  Plan plan = Pitched(3);
  plan.ops.erase(plan.ops.begin() + 2);  // row 2 of the input never went in
  EXPECT_EQ(PlaceRows(plan, kInput, CopyDirection::kToDevice, kRow, 3, kPitch).rows_off_pitch, 1);
  plan = Pitched(3);
  plan.ops[1] = Upload(kRow, kRegion + 1, kPitch, kRow);  // row 1 into another allocation
  const RowPlacement p = PlaceRows(plan, kInput, CopyDirection::kToDevice, kRow, 3, kPitch);
  EXPECT_EQ(p.rows_off_pitch, 1);
  EXPECT_FALSE(p.first_spacing.has_value());
  // Nothing copied at all: every row.
  EXPECT_EQ(PlaceRows(Plan{}, kOutput, CopyDirection::kToHost, kRow, 3, kPitch).rows_off_pitch, 3);
}

// The last copy of a row is where it stays; copies of the other array, or the other way, do not
// count.
TEST(PlaceRows, TheLastCopyOfTheRightArrayAndDirectionDecides) {
  Plan plan = Pitched(2);
  plan.ops.push_back(Upload(0, kRegion, 0, 2 * kRow));  // copied again, dense, over row 0
  EXPECT_EQ(PlaceRows(plan, kInput, CopyDirection::kToDevice, kRow, 2, kPitch).rows_off_pitch, 1);
  plan = Pitched(2);
  EXPECT_EQ(PlaceRows(plan, kOutput, CopyDirection::kToDevice, kRow, 2, kPitch).rows_off_pitch, 2);
  EXPECT_EQ(PlaceRows(plan, kInput, CopyDirection::kToHost, kRow, 2, kPitch).rows_off_pitch, 2);
}

}  // namespace
}  // namespace lab02
