// Lab 02, exercise 4: pitched 2-D arrays. The kit allocates each matrix with cudaMallocPitch and
// fills the padding at the end of every row with a sentinel, runs the student's kernel, and reads
// every row back whole: the logical matrix must be right and the padding untouched. The host
// version (scale_pitched_on_device) is recorded and replayed on fresh values (host_run.cuh), and
// checked for its values, its cudaMemcpy2D copies and leaks.
#include <string>
#include <vector>

#include "global_memory_lab.cuh"
#include "host_run.cuh"
#include "lab02_exercises.h"
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
      v.student_image());
  const auto want = Scaled(in);
  CheckHostRun(v, run, "pitched_scale_kernel");
  Check(v, "memcpy2d_calls", run.copies_2d, 2,
        "copy the matrix in and back with one cudaMemcpy2D each: it takes the host's row length "
        "and the device's pitch, so the padding is skipped on both sides");
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
