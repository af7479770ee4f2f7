// Lab 02's bandwidth report: the offset and stride sweeps measured on the student's GPU, written as
// a text table and an SVG plot labelled with the GPU's name and the date of the run, plus the check
// that such files have the shape the kit writes (used by the tests on files from a real run).
//
// Plain C++, no CUDA: the measuring driver (measure_gpu.cu) fills a Sweep; everything here is
// tested on machines without a GPU.
#pragma once

#include <string>
#include <vector>

namespace lab02 {

struct SweepPoint {
  int x = 0;        // the offset or the stride, in floats
  double gbps = 0;  // effective bandwidth: bytes the kernel must read and write, per second
};

struct Sweep {
  std::string gpu;                 // cudaDeviceProp::name
  std::string date;                // YYYY-MM-DD, of the run
  std::vector<SweepPoint> offset;  // offsets 0..32
  std::vector<SweepPoint> stride;  // strides 1..32
  // Extra lines for the table (the float3 versions), "name: value" each.
  std::vector<std::string> notes;
};

// The table: a header naming the GPU and the date, then one row per offset and per stride.
std::string BandwidthTable(const Sweep& sweep);
// The plot: both curves on one chart, GB/s against offset or stride.
std::string BandwidthSvg(const Sweep& sweep);

// "" when `table` and `svg` have the kit's structure (a GPU name and an ISO date in both, 33
// offset and 32 stride rows with positive numbers, an <svg> document with two polylines of 33 and
// 32 points inside its view box); otherwise what is wrong.
std::string CheckBandwidthFiles(const std::string& table, const std::string& svg);

}  // namespace lab02
