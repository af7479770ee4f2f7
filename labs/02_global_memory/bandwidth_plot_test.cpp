#include "bandwidth_plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace lab02 {
namespace {

// A sweep shaped like a real one: flat over offsets, falling as 1/stride until 8.
Sweep ExampleSweep() {
  Sweep s;
  s.gpu = "NVIDIA H100 80GB HBM3";
  s.date = "2026-11-25";
  for (int o = 0; o <= 32; ++o) s.offset.push_back({o, o % 32 == 0 ? 2900.0 : 2700.0});
  for (int k = 1; k <= 32; ++k) s.stride.push_back({k, 2900.0 / std::min(k, 8)});
  s.notes.push_back("float3 staged / direct: 1.21");
  return s;
}

TEST(BandwidthPlot, WrittenFilesPassTheStructureCheck) {
  const Sweep s = ExampleSweep();
  EXPECT_EQ(CheckBandwidthFiles(BandwidthTable(s), BandwidthSvg(s)), "");
}

TEST(BandwidthPlot, TableCarriesGpuDateAndEveryPoint) {
  const std::string table = BandwidthTable(ExampleSweep());
  EXPECT_NE(table.find("# GPU: NVIDIA H100 80GB HBM3\n"), std::string::npos);
  EXPECT_NE(table.find("# date: 2026-11-25\n"), std::string::npos);
  EXPECT_NE(table.find("offset 1 2700.0\n"), std::string::npos);
  EXPECT_NE(table.find("stride 32 362.5\n"), std::string::npos);
  EXPECT_NE(table.find("# float3 staged / direct: 1.21\n"), std::string::npos);
}

TEST(BandwidthPlot, SvgNamesTheGpuWithReservedCharactersEscaped) {
  Sweep s = ExampleSweep();
  s.gpu = "GPU <A&B>";
  const std::string svg = BandwidthSvg(s);
  EXPECT_NE(svg.find("<title>Lab 02 copy sweep on GPU &lt;A&amp;B&gt;, 2026-11-25</title>"),
            std::string::npos);
  EXPECT_EQ(CheckBandwidthFiles(BandwidthTable(s), svg), "");
}

TEST(BandwidthPlot, HighestPointStaysInsideTheChart) {
  // The curve's highest point sits below the top margin: 10% headroom.
  const std::string svg = BandwidthSvg(ExampleSweep());
  EXPECT_NE(svg.find(" points=\"70.0,89.1 "), std::string::npos) << svg;  // offset 0: 2900 of 3190
}

TEST(BandwidthPlot, CheckNamesWhatIsMissing) {
  const Sweep s = ExampleSweep();
  const std::string table = BandwidthTable(s), svg = BandwidthSvg(s);

  std::string no_date = table;
  no_date.replace(no_date.find("# date: "), 8, "# when: ");
  EXPECT_EQ(CheckBandwidthFiles(no_date, svg), "the table has no date (YYYY-MM-DD)");

  Sweep short_sweep = s;
  short_sweep.stride.pop_back();
  EXPECT_EQ(CheckBandwidthFiles(BandwidthTable(short_sweep), svg),
            "the table has 33 offset and 31 stride rows, not 33 and 32");
  EXPECT_EQ(CheckBandwidthFiles(table, BandwidthSvg(short_sweep)),
            "the plot's curve 2 has 31 points, not 32");

  Sweep other_gpu = s;
  other_gpu.gpu = "Another GPU";
  EXPECT_EQ(CheckBandwidthFiles(table, BandwidthSvg(other_gpu)), "the plot does not name the GPU");

  EXPECT_EQ(CheckBandwidthFiles(table, svg.substr(0, svg.size() - 7)),
            "the plot is not one <svg> element");

  Sweep zero = s;
  zero.offset[3].gbps = 0;
  EXPECT_EQ(CheckBandwidthFiles(BandwidthTable(zero), svg), "a row with no bandwidth: offset 3");
}

}  // namespace
}  // namespace lab02
