// Lab 02's exercise table, and exercises 1 and 2. Every exercise is a query (docs/LAB_SPEC.md):
// the kit launches the student's kernels itself (or calls the student's host function), checks
// every element and the poisoned bytes around the outputs, and reports counts that labgrade
// compares with the right ones; a wrong count carries the cause the kit found.
#include <functional>
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

int Blocks(long long n) { return static_cast<int>((n + LAB02_BLOCK - 1) / LAB02_BLOCK); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Exercise 1: vector_add_on_device.
// ---------------------------------------------------------------------------------------------
void VectorAdd(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n"));
  auto rx = Values(n, 11), ry = Values(n, 12);  // the record run's own inputs
  std::vector<float> rz(n), x, y, z;
  const HostRun run = RecordAndReplay(
      {&rx, &ry, &rz}, [&] {
        return labkit::call_student(
            [&] { return vector_add_on_device(rx.data(), ry.data(), rz.data(), n); });
      },
      [&] {
        const uint32_t seed = FreshSeed();
        x = Values(n, seed);
        y = Values(n, seed + 1);
        z.assign(n, Poison());
        return HostArrays{&x, &y, &z};
      },
      v);
  if (run.recorded_only) return;  // a record run: the replay run checks
  CheckHostRun(v, run, "vector_add_kernel");

  const unsigned long long bytes = 4ull * n;
  const bool wrong_way = run.to_host == 0 && run.to_device == 3 * bytes;
  const std::string short_by_one = "the copy is one float short: a length of n - 1 somewhere";
  Check(v, "bytes_to_device", run.to_device, 2 * bytes,
        wrong_way                        ? "host_z was copied to the device: the copy back goes "
                                           "the wrong way (destination host_z, source the device "
                                           "array, cudaMemcpyDeviceToHost)"
        : run.to_device == 2 * bytes - 8 ? short_by_one
        : run.to_device == 0             ? "nothing was copied to the device: copy x and y, n "
                                           "floats each, with cudaMemcpyHostToDevice"
                                         : "copy exactly x and y, n floats each, to the device");
  Check(v, "bytes_to_host", run.to_host, bytes,
        wrong_way                  ? "the copy back goes the wrong way (host to device): copy the "
                                     "device array into host_z with cudaMemcpyDeviceToHost"
        : run.to_host == 0         ? "the result is never copied back: host_z needs a cudaMemcpy "
                                     "from the device array with cudaMemcpyDeviceToHost"
        : run.to_host == bytes - 4 ? short_by_one
                                   : "copy exactly n floats back into host_z");

  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = x[i] + y[i];
  const Mismatches m = Compare("z", want.data(), z.data(), n, [&](std::size_t i) {
    // The first wrong element is the last one, so it is the only one.
    if (i + 1 == static_cast<std::size_t>(n) && n > 1)
      return std::string(
          "only the last element is wrong: an off-by-one length (n - 1 passed "
          "to the kernel, or a bound of i < n - 1)");
    if (IsPoison(z[i])) return std::string("never copied back into host_z from the device");
    return HostValuesCause(run, z[i]);
  });
  Check(v, "wrong_elements", m.count, 0, m.first);
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: offset and strided copies.
// ---------------------------------------------------------------------------------------------
namespace {

// Launches `launch(in, out)` over n outputs read from `in_host`, and checks out against `want`.
template <class Launch>
void CheckCopy(QueryValues& v, const std::vector<float>& in_host, const std::vector<float>& want,
               const std::function<std::string(std::size_t, float)>& explain, Launch&& launch) {
  const std::size_t n = want.size();
  const auto in = Upload(in_host);
  const auto out = Upload(std::vector<float>(n + kGuard, Poison()));
  launch(in.get(), out.get());
  const std::vector<float> got = Download(out);
  const Mismatches m =
      Compare("out", want.data(), got.data(), n, [&](std::size_t i) { return explain(i, got[i]); });
  Check(v, "wrong_elements", m.count, 0, m.first);
  Check(v, "written_past_end", Overwritten(got, n), 0,
        "out was written past out[n - 1]: threads with i >= n must store nothing");
}

}  // namespace

void OffsetCopy(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n")), offset = static_cast<int>(p.at("offset"));
  const auto in = Values(static_cast<std::size_t>(n) + offset, FreshSeed());
  const std::vector<float> want(in.begin() + offset, in.end());
  CheckCopy(
      v, in, want,
      [&](std::size_t i, float got) {
        if (IsPoison(got)) return std::string("never written");
        return SameBits(got, in[i]) && offset != 0
                   ? std::string("that is in[i]: the offset is not added to the index read")
                   : std::string("out[i] must be in[i + offset]");
      },
      [&](const float* d_in, float* d_out) {
        offset_copy_kernel<<<Blocks(n), LAB02_BLOCK>>>(d_in, d_out, n, offset);
        SyncKernel("offset_copy_kernel");
      });
}

void StridedCopy(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n")), stride = static_cast<int>(p.at("stride"));
  const auto in = Values(static_cast<std::size_t>(n - 1) * stride + 1, FreshSeed());
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = in[static_cast<std::size_t>(i) * stride];
  CheckCopy(
      v, in, want,
      [&](std::size_t i, float got) {
        if (IsPoison(got)) return std::string("never written");
        if (SameBits(got, in[i]) && stride != 1)
          return std::string("that is in[i]: the index read is not multiplied by the stride");
        return std::string("out[i] must be in[i * stride]");
      },
      [&](const float* d_in, float* d_out) {
        strided_copy_kernel<<<Blocks(n), LAB02_BLOCK>>>(d_in, d_out, n, stride);
        SyncKernel("strided_copy_kernel");
      });
}

}  // namespace lab02

namespace {

// A failing call of the kit's own ends the case, not the harness.
template <void (*Exercise)(const labkit::Params&, labkit::QueryValues&)>
void Safely(const labkit::Params& p, labkit::QueryValues& v) {
  lab02::Guarded(v, [&] { Exercise(p, v); });
}

}  // namespace

std::vector<labkit::MatmulExercise> labkit::lab_exercises() { return {}; }

std::vector<labkit::QueryExercise> labkit::lab_queries() {
  return {{"vector_add", Safely<lab02::VectorAdd>},
          {"offset_copy", Safely<lab02::OffsetCopy>},
          {"strided_copy", Safely<lab02::StridedCopy>},
          {"float3_direct", Safely<lab02::Float3Direct>},
          {"float3_staged", Safely<lab02::Float3Staged>},
          {"float3_soa", Safely<lab02::Float3Soa>},
          {"pitched_scale", Safely<lab02::PitchedScale>},
          {"pitched_host", Safely<lab02::PitchedHost>},
          {"matmul_pitched", Safely<lab02::MatmulPitched>}};
}
