// Lab 02's measurements on a real GPU, from the student's own kernels (or the reference
// solution's): the offset copy over offsets 0..32 and the strided copy over strides 1..32, as
// effective bandwidth (the n floats a copy must read plus the n it writes, per second), and the
// three float3 versions side by side. Writes bandwidth.txt and bandwidth.svg (bandwidth_plot.h)
// into OUT_DIR, labelled with the GPU's name and today's date.
//
//   lab02_measure_gpu OUT_DIR [--spec LAB_DIR]
//
// With --spec (the folder of lab 02's lab.yaml), exits 1 unless the staged and SoA float3 versions
// each run at least as many times as fast as the direct one in this run as the spec's
// `faster_than` says (the handout's claim, checked where it is measured).
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <tuple>

#include "bandwidth_plot.h"
#include "float3_margins.h"
#include "global_memory_lab.cuh"
#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"
#include "labkit/median_time.cuh"

namespace {

// 16 Mi floats a copy: 64 MiB each way, beyond the L2 of any current GPU (50 MiB on an H100),
// so the sweep measures DRAM, not cache.
constexpr int kN = 1 << 24;

int Blocks(int n) { return (n + LAB02_BLOCK - 1) / LAB02_BLOCK; }

double Gbps(double bytes, double ms) { return bytes / (ms * 1e6); }

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--spec")) {
    std::fprintf(stderr, "usage: %s OUT_DIR [--spec LAB_DIR]\n", argv[0]);
    return 2;
  }
  const std::string out_dir = argv[1];
  lab02::Float3Margins margins;
  if (argc == 4) {
    margins = lab02::ReadFloat3Margins(argv[3]);
    if (!margins.error.empty()) {
      std::fprintf(stderr, "%s\n", margins.error.c_str());
      return 2;
    }
  }

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "the copy sweep needs a GPU: none answers here\n");
    return 77;  // CTest's skip code for the gpu-labelled tests
  }
  cudaDeviceProp prop{};
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  lab02::Sweep sweep;
  sweep.gpu = prop.name;
  sweep.date = Today();

  const double copy_bytes = 2.0 * kN * sizeof(float);
  {
    // One input big enough for the largest stride; its contents do not matter for timing.
    labkit::DeviceBuffer<float> in(static_cast<std::size_t>(kN - 1) * 32 + 1), out(kN);
    LABKIT_CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
    for (int offset = 0; offset <= 32; ++offset) {
      const double ms = labkit::median_launch_ms([&] {
        offset_copy_kernel<<<Blocks(kN), LAB02_BLOCK>>>(in.get(), out.get(), kN, offset);
      });
      sweep.offset.push_back({offset, Gbps(copy_bytes, ms)});
    }
    for (int stride = 1; stride <= 32; ++stride) {
      const double ms = labkit::median_launch_ms([&] {
        strided_copy_kernel<<<Blocks(kN), LAB02_BLOCK>>>(in.get(), out.get(), kN, stride);
      });
      sweep.stride.push_back({stride, Gbps(copy_bytes, ms)});
    }
  }

  // float3: n points in and out, 24 bytes of traffic a point whichever the layout.
  const double point_bytes = 2.0 * kN * 3 * sizeof(float);
  labkit::DeviceBuffer<float> a(3 * static_cast<std::size_t>(kN)), b(a.size());
  LABKIT_CUDA_CHECK(cudaMemset(a.get(), 0, a.bytes()));
  const double direct = labkit::median_launch_ms([&] {
    float3_scale_direct_kernel<<<Blocks(kN), LAB02_BLOCK>>>(
        reinterpret_cast<const float3*>(a.get()), reinterpret_cast<float3*>(b.get()), kN, 1.5f);
  });
  const double staged = labkit::median_launch_ms(
      [&] { float3_scale_staged_kernel<<<Blocks(kN), LAB02_BLOCK>>>(a.get(), b.get(), kN, 1.5f); });
  // The SoA pass scales in place: 12 bytes read and 12 written a point, as above.
  float* xs = a.get();
  const double soa = labkit::median_launch_ms(
      [&] { soa_scale_kernel<<<Blocks(kN), LAB02_BLOCK>>>(xs, xs + kN, xs + 2 * kN, kN, 1.5f); });
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const double staged_ratio = direct / staged, soa_ratio = direct / soa;
  char line[160];
  std::snprintf(line, sizeof line, "float3 direct: %.1f GB/s, staged: %.1f GB/s, soa: %.1f GB/s",
                Gbps(point_bytes, direct), Gbps(point_bytes, staged), Gbps(point_bytes, soa));
  sweep.notes.push_back(line);
  std::snprintf(line, sizeof line, "speedup over direct: staged %.2f, soa %.2f", staged_ratio,
                soa_ratio);
  sweep.notes.push_back(line);

  const std::string table = lab02::BandwidthTable(sweep);
  if (!WriteFile(out_dir + "/bandwidth.txt", table) ||
      !WriteFile(out_dir + "/bandwidth.svg", lab02::BandwidthSvg(sweep))) {
    std::fprintf(stderr, "cannot write into %s\n", out_dir.c_str());
    return 1;
  }
  std::fputs(table.c_str(), stdout);
  int failed = 0;
  for (const auto& [name, ratio, margin] :
       {std::tuple{"staged", staged_ratio, margins.staged}, std::tuple{"soa", soa_ratio, margins.soa}})
    if (margin > 0 && ratio < margin) {
      std::printf("FAILED: %s must be at least %.2f times as fast as direct (lab.yaml), got %.2f\n",
                  name, margin, ratio);
      failed = 1;
    }
  return failed;
}
