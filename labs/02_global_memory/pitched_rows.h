// Where a recorded host function put the rows of a dense host matrix on the device, read off its
// plan (replay_plan.h), to tell pitched storage from plain: with cudaMallocPitch and cudaMemcpy2D
// row r lands `pitch` bytes after row r - 1 in one allocation; with cudaMalloc and a "pitch" of
// width * 4 it lands right behind it. The plan is made by the kit's link wraps from the calls the
// function really made, so the layout is what the device held, whatever the host code says.
//
// Plain C++ (the harness and its unit test both include it).
#pragma once

#include <cstdint>
#include <optional>

#include "replay_plan.h"

namespace lab02 {

// Which of a host array's copies to look at: into the device (the input) or out of it (the
// output).
enum class CopyDirection { kToDevice, kToHost };

struct RowPlacement {
  long long rows_off_pitch = 0;  // rows not `pitch` bytes after the one before, or never copied
  // Bytes from row 0's device copy to row 1's, when both lie in one allocation (for messages).
  std::optional<int64_t> first_spacing;
};

// How the rows of host array `array` (`rows` rows of `row_bytes` bytes, dense) were copied to or
// from the device in `plan`: each row's device address from the last copy that moved all of it,
// compared with row 0's plus r * `pitch`.
inline RowPlacement PlaceRows(const labkit::replay::Plan& plan, int32_t array,
                              CopyDirection direction, uint64_t row_bytes, int rows,
                              uint64_t pitch) {
  using labkit::replay::Op;
  using labkit::replay::OpType;
  using labkit::replay::Ref;
  // The device address of host byte `at` as the last copy covering [at, at + row_bytes) left it.
  auto device_of = [&](uint64_t at) -> std::optional<Ref> {
    std::optional<Ref> found;
    for (const Op& op : plan.ops) {
      const bool upload = op.type == OpType::kHostUpload && op.src.region == array;
      const bool download = op.type == OpType::kHostDownload && op.dst.region == array;
      if (direction == CopyDirection::kToDevice ? !upload : !download) continue;
      const Ref& host = upload ? op.src : op.dst;
      const Ref& device = upload ? op.dst : op.src;
      if (host.offset < 0 || static_cast<uint64_t>(host.offset) > at ||
          at + row_bytes > static_cast<uint64_t>(host.offset) + op.bytes)
        continue;
      found = Ref{device.region, device.offset + static_cast<int64_t>(at - host.offset)};
    }
    return found;
  };
  RowPlacement placement;
  const std::optional<Ref> first = device_of(0);
  for (int r = 0; r < rows; ++r) {
    const std::optional<Ref> row = r == 0 ? first : device_of(r * row_bytes);
    if (r == 1 && first && row && row->region == first->region)
      placement.first_spacing = row->offset - first->offset;
    const bool at_pitch = first && row && row->region == first->region &&
                          row->offset == first->offset + static_cast<int64_t>(r * pitch);
    if (!at_pitch) ++placement.rows_off_pitch;
  }
  return placement;
}

}  // namespace lab02
