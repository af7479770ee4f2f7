// Lab 02, exercise 4: pitched 2-D arrays. The kit allocates each matrix with cudaMallocPitch and
// fills the padding at the end of every row with a sentinel, runs the student's kernel, and reads
// every row back whole: the logical matrix must be right and the padding untouched. The host
// version (scale_pitched_on_device) is recorded and replayed on fresh values (host_run.cuh), and
// checked for its values, its cudaMemcpy2D copies, leaks and for the matrix really being in pitched
// storage on the device (its rows where cudaMallocPitch puts them, read off the record).
#include <string>
#include <vector>

#include "global_memory_lab.cuh"
#include "host_run.cuh"
#include "lab02_exercises.h"
#include "pitched_rows.h"
#include "student_call.h"

namespace lab02 {
namespace {

using labkit::Params;
using labkit::QueryValues;

constexpr float kScale = -2.0f;

dim3 GridOver(int width, int height) {
  return dim3((width + LAB02_TILE - 1) / LAB02_TILE, (height + LAB02_TILE - 1) / LAB02_TILE);
}

std::string Element(int width, std::size_t i) {
  return "(" + std::to_string(i / width) + ", " + std::to_string(i % width) + ")";
}

// The pitch cudaMallocPitch gives rows of `width` floats on this device: the distance between
// rows in pitched storage (512 bytes or more on current GPUs and on the CPU backend).
std::size_t DevicePitch(int width, int height) {
  void* probe = nullptr;
  std::size_t pitch = 0;
  LABKIT_CUDA_CHECK(cudaMallocPitch(&probe, &pitch, width * sizeof(float), height));
  LABKIT_CUDA_CHECK(cudaFree(probe));
  return pitch;
}

// Why rows were found off the pitch, for pitched_host's `rows_off_pitch`.
std::string OffPitchCause(const RowPlacement& in, int width, std::size_t pitch) {
  const std::string where = "cudaMallocPitch puts rows of " + std::to_string(width) +
                            " floats " + std::to_string(pitch) + " bytes apart";
  const std::string fix =
      ". Allocate the matrix with cudaMallocPitch and give the pitch it returns to both "
      "cudaMemcpy2D calls (dpitch on the way in, spitch on the way back) and to the kernel";
  if (in.first_spacing == static_cast<int64_t>(width * sizeof(float)))
    return "the matrix is in plain storage, not pitched: on the device its rows lie " +
           std::to_string(*in.first_spacing) + " bytes apart, back to back, where " + where + fix;
  return "rows of the matrix were copied to or from the device at other places than pitched "
         "storage has them (" + where + ", row r at r * pitch)" + fix;
}

std::vector<float> Scaled(const std::vector<float>& in) {
  std::vector<float> out;
  for (float x : in) out.push_back(kScale * x);
  return out;
}

}  // namespace

void PitchedScale(const Params& p, QueryValues& v) {
  const int width = static_cast<int>(p.at("width")), height = static_cast<int>(p.at("height"));
  const auto in = Values(static_cast<std::size_t>(width) * height, FreshSeed());
  const auto want = Scaled(in);
  PitchedMatrix M(width, height, in);
  pitched_scale_kernel<<<GridOver(width, height), dim3(LAB02_TILE, LAB02_TILE)>>>(
      M.get(), M.pitch(), width, height, kScale);
  SyncKernel("pitched_scale_kernel");
  const std::vector<float> image = M.Image();
  const std::vector<float> got = M.Dense(image);
  const bool first_row_right = Compare("M", want.data(), got.data(), width, nullptr).count == 0;
  const Mismatches m = Compare("M", want.data(), got.data(), got.size(), [&](std::size_t i) {
    std::string where = "element " + Element(width, i);
    if (SameBits(got[i], in[i]) && first_row_right && i >= static_cast<std::size_t>(width))
      return where +
             " kept its input while row 0 is right: rows were found with the width "
             "(r * width + c) instead of the pitch (the row starts r * pitch bytes in)";
    if (SameBits(got[i], in[i])) return where + " kept its input: it was never scaled";
    return where + (IsPoison(got[i]) ? " was lost" : " must be s times its input");
  });
  Check(v, "wrong_elements", m.count, 0, m.first);
  Check(v, "padding_written", M.PaddingWritten(image), 0,
        "the padding between a row's width and the pitch was written: the kernel indexes past "
        "the end of a row (a bound on the pitch instead of the width, or the width ignored)");
}

void PitchedHost(const Params& p, QueryValues& v) {
  const int width = static_cast<int>(p.at("width")), height = static_cast<int>(p.at("height"));
  const std::size_t count = static_cast<std::size_t>(width) * height;
  const std::size_t pitch = DevicePitch(width, height);  // before the record: not the student's
  auto record_in = Values(count, 17);
  std::vector<float> record_out(count), in, out;
  const HostRun run = RecordAndReplay(
      {&record_in, &record_out},
      [&] {
        return labkit::call_student([&] {
          return scale_pitched_on_device(record_in.data(), record_out.data(), width, height,
                                         kScale);
        });
      },
      [&] {
        in = Values(count, FreshSeed());
        out.assign(count, Poison());
        return HostArrays{&in, &out};
      },
      v);
  if (run.recorded_only) return;  // a record run: the replay run checks
  const auto want = Scaled(in);
  CheckHostRun(v, run, "pitched_scale_kernel");
  Check(v, "memcpy2d_calls", run.copies_2d, 2,
        "copy the matrix in and back with one cudaMemcpy2D each: it takes the host's row length "
        "and the device's pitch, so the padding is skipped on both sides");
  // Host arrays 0 and 1 of the record: host_in, copied in, and host_out, copied back.
  const uint64_t row_bytes = width * sizeof(float);
  const RowPlacement in_rows =
      PlaceRows(run.plan, 0, CopyDirection::kToDevice, row_bytes, height, pitch);
  const RowPlacement out_rows =
      PlaceRows(run.plan, 1, CopyDirection::kToHost, row_bytes, height, pitch);
  Check(v, "rows_off_pitch", in_rows.rows_off_pitch + out_rows.rows_off_pitch, 0,
        OffPitchCause(in_rows.rows_off_pitch > 0 ? in_rows : out_rows, width, pitch));
  const Mismatches m = Compare("host_out", want.data(), out.data(), count, [&](std::size_t i) {
    if (IsPoison(out[i])) return "element " + Element(width, i) + " was never copied back";
    const std::string cause = HostValuesCause(run, out[i]);
    return "element " + Element(width, i) + (cause.empty() ? "" : ": " + cause);
  });
  Check(v, "wrong_elements", m.count, 0, m.first);
}

void MatmulPitched(const Params& p, QueryValues& v) {
  const int m = static_cast<int>(p.at("m")), n = static_cast<int>(p.at("n")),
            k = static_cast<int>(p.at("k"));
  const auto a = Values(static_cast<std::size_t>(m) * n, FreshSeed());
  const auto b = Values(static_cast<std::size_t>(n) * k, FreshSeed());
  // Small multiples of 1/4: every product and partial sum is exact, in any order.
  std::vector<float> want(static_cast<std::size_t>(m) * k, 0.0f);
  for (int r = 0; r < m; ++r)
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < k; ++c) want[r * k + c] += a[r * n + i] * b[i * k + c];
  PitchedMatrix A(n, m, a), B(k, n, b), C(k, m, std::vector<float>(want.size(), Poison()));
  matmul_pitched_kernel<<<GridOver(k, m), dim3(LAB02_TILE, LAB02_TILE)>>>(
      A.get(), A.pitch(), B.get(), B.pitch(), C.get(), C.pitch(), m, n, k);
  SyncKernel("matmul_pitched_kernel");
  const std::vector<float> image = C.Image();
  const std::vector<float> got = C.Dense(image);
  const Mismatches wrong = Compare("C", want.data(), got.data(), got.size(), [&](std::size_t i) {
    return "element " + Element(k, i) +
           (IsPoison(got[i]) ? " was never written" : ": index A, B and C through their pitches");
  });
  Check(v, "wrong_elements", wrong.count, 0, wrong.first);
  Check(v, "padding_written", C.PaddingWritten(image), 0,
        "C's padding (between its width k and its pitch) was written: a bound on the pitch "
        "instead of k");
}

}  // namespace lab02
