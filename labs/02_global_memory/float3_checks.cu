// Lab 02, exercise 3: float3 points scaled three ways (direct, staged through shared memory, as a
// structure of arrays). Each kernel is launched by the kit on n points with guard points behind
// the output, and every coordinate is compared exactly (the inputs make s * x exact).
//
// Whether the staged kernel really stages is judged by labgrade from what it did (lab.yaml
// `measured`: its shared- and global-memory accesses per point, counted), not here.
#include <string>
#include <vector>

#include "global_memory_lab.cuh"
#include "host_run.cuh"
#include "lab02_exercises.h"

namespace lab02 {
namespace {

using labkit::Params;
using labkit::QueryValues;

constexpr float kScale = 1.5f;

int Blocks(int n) { return (n + LAB02_BLOCK - 1) / LAB02_BLOCK; }

// n points as 3n floats, and what scaling them gives.
struct Points {
  std::vector<float> in, want;
};
Points MakePoints(int n) {
  Points p;
  p.in = Values(3 * static_cast<std::size_t>(n), FreshSeed());
  for (float x : p.in) p.want.push_back(kScale * x);
  return p;
}

// Which coordinate float f of a float3 array is, for messages: "point 7's y".
std::string Coordinate(std::size_t f) {
  return "point " + std::to_string(f / 3) + "'s " + "xyz"[f % 3];
}

// Runs `launch(in, out)` (both as floats) and checks the n points it wrote and the guard behind.
template <class Launch>
void CheckScaled(QueryValues& v, int n, const char* kernel, Launch&& launch) {
  const Points p = MakePoints(n);
  const auto in = Upload(p.in);
  const auto out = Upload(std::vector<float>(p.in.size() + 3 * kGuard, Poison()));
  launch(in.get(), out.get());
  SyncKernel(kernel);
  const std::vector<float> got = Download(out);
  const Mismatches m = Compare("out", p.want.data(), got.data(), p.want.size(), [&](std::size_t f) {
    if (IsPoison(got[f])) return Coordinate(f) + " was never written";
    if (SameBits(got[f], p.in[f])) return Coordinate(f) + " was copied but not scaled";
    return Coordinate(f) + " must be s times the input";
  });
  Check(v, "wrong_floats", m.count, 0, m.first);
  Check(v, "written_past_end", Overwritten(got, p.want.size()), 0,
        std::string(kernel) +
            " wrote past the last point: threads past n (and in the staged "
            "kernel, floats past 3n) must store nothing");
}

}  // namespace

void Float3Direct(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n"));
  CheckScaled(v, n, "float3_scale_direct_kernel", [&](const float* in, float* out) {
    float3_scale_direct_kernel<<<Blocks(n), LAB02_BLOCK>>>(
        reinterpret_cast<const float3*>(in), reinterpret_cast<float3*>(out), n, kScale);
  });
}

void Float3Staged(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n"));
  CheckScaled(v, n, "float3_scale_staged_kernel", [&](const float* in, float* out) {
    float3_scale_staged_kernel<<<Blocks(n), LAB02_BLOCK>>>(in, out, n, kScale);
  });
}

void Float3Soa(const Params& p, QueryValues& v) {
  const int n = static_cast<int>(p.at("n"));
  const Points points = MakePoints(n);
  const auto in = Upload(points.in);
  // Three arrays with guards, poisoned; split, then scaled in place.
  std::vector<labkit::DeviceBuffer<float>> soa;
  for (int c = 0; c < 3; ++c) soa.push_back(Upload(std::vector<float>(n + kGuard, Poison())));
  aos_to_soa_kernel<<<Blocks(n), LAB02_BLOCK>>>(reinterpret_cast<const float3*>(in.get()),
                                                soa[0].get(), soa[1].get(), soa[2].get(), n);
  SyncKernel("aos_to_soa_kernel");
  std::vector<std::vector<float>> split;
  for (const auto& a : soa) split.push_back(Download(a));
  soa_scale_kernel<<<Blocks(n), LAB02_BLOCK>>>(soa[0].get(), soa[1].get(), soa[2].get(), n, kScale);
  SyncKernel("soa_scale_kernel");

  const char* names[3] = {"xs", "ys", "zs"};
  for (int c = 0; c < 3; ++c) {
    // Coordinate c of every point, before and after scaling.
    std::vector<float> want(n), scaled(n);
    for (int i = 0; i < n; ++i) {
      want[i] = points.in[3 * static_cast<std::size_t>(i) + c];
      scaled[i] = points.want[3 * static_cast<std::size_t>(i) + c];
    }
    const Mismatches m = Compare(names[c], want.data(), split[c].data(), n, [&](std::size_t i) {
      for (int other = 0; other < 3; ++other)
        if (other != c && SameBits(split[c][i], points.in[3 * i + other]))
          return std::string("that is point ") + std::to_string(i) + "'s " + "xyz"[other] +
                 ": aos_to_soa_kernel puts the fields in the wrong arrays";
      return std::string(IsPoison(split[c][i]) ? "never written by aos_to_soa_kernel" : "");
    });
    Check(v, (std::string("wrong_after_split_") + names[c]).c_str(), m.count, 0, m.first);
    const std::vector<float> got = Download(soa[c]);
    const Mismatches s = Compare(names[c], scaled.data(), got.data(), n, [&](std::size_t i) {
      if (IsPoison(got[i])) return std::string("never written");
      return SameBits(got[i], split[c][i]) ? std::string("not scaled by soa_scale_kernel")
                                           : std::string();
    });
    Check(v, (std::string("wrong_after_scale_") + names[c]).c_str(), s.count, 0, s.first);
    Check(v, (std::string("written_past_end_") + names[c]).c_str(), Overwritten(got, n), 0,
          std::string(names[c]) +
              " was written past element n - 1: threads with i >= n must "
              "store nothing");
  }
}

}  // namespace lab02
