#include "bandwidth_plot.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include "text.h"

namespace lab02 {
namespace {

constexpr int kWidth = 720, kHeight = 440;
constexpr int kLeft = 70, kRight = 20, kTop = 60, kBottom = 60;  // margins around the chart
constexpr int kOffsets = 33, kStrides = 32;

std::string Fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// A GPU name is free text: escaped as in the kit's HTML pages, which XML reads the same way.
std::string Xml(const std::string& text) { return labkit::HtmlEscaped(text); }

double MaxBandwidth(const Sweep& s) {
  double top = 0;
  for (const auto* curve : {&s.offset, &s.stride})
    for (const SweepPoint& p : *curve) top = std::max(top, p.gbps);
  return top > 0 ? top : 1;
}

std::string Polyline(const std::vector<SweepPoint>& curve, double top, const char* colour) {
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  std::string points;
  for (const SweepPoint& p : curve) {
    const double x = kLeft + plot_w * p.x / 32.0;
    const double y = kTop + plot_h * (1.0 - p.gbps / top);
    points += (points.empty() ? "" : " ") + Fixed(x, 1) + "," + Fixed(y, 1);
  }
  return "  <polyline fill=\"none\" stroke=\"" + std::string(colour) +
         "\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
}

}  // namespace

std::string BandwidthTable(const Sweep& s) {
  std::ostringstream out;
  out << "# Lab 02 copy sweep: effective bandwidth (GB/s) of the student's copy kernels\n"
      << "# GPU: " << s.gpu << "\n# date: " << s.date << "\n";
  for (const std::string& note : s.notes) out << "# " << note << "\n";
  out << "kind x gbps\n";
  for (const SweepPoint& p : s.offset) out << "offset " << p.x << " " << Fixed(p.gbps, 1) << "\n";
  for (const SweepPoint& p : s.stride) out << "stride " << p.x << " " << Fixed(p.gbps, 1) << "\n";
  return out.str();
}

std::string BandwidthSvg(const Sweep& s) {
  const double top = MaxBandwidth(s) * 1.1;  // headroom above the highest point
  const int bottom = kHeight - kBottom, right = kWidth - kRight;
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\">\n"
      << "  <title>Lab 02 copy sweep on " << Xml(s.gpu) << ", " << Xml(s.date) << "</title>\n"
      << "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "  <text x=\"" << kLeft << "\" y=\"28\" font-family=\"sans-serif\" font-size=\"16\">"
      << "Effective bandwidth of the copy kernels: " << Xml(s.gpu) << ", " << Xml(s.date)
      << "</text>\n"
      // Axes, with the y axis's top value and the x axis's ends.
      << "  <line x1=\"" << kLeft << "\" y1=\"" << bottom << "\" x2=\"" << right << "\" y2=\""
      << bottom << "\" stroke=\"black\"/>\n"
      << "  <line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
      << bottom << "\" stroke=\"black\"/>\n"
      << "  <text x=\"" << kLeft - 8 << "\" y=\"" << kTop + 4
      << "\" text-anchor=\"end\" font-family=\"sans-serif\" font-size=\"12\">" << Fixed(top, 0)
      << "</text>\n"
      << "  <text x=\"" << kLeft - 8 << "\" y=\"" << bottom + 4
      << "\" text-anchor=\"end\" font-family=\"sans-serif\" font-size=\"12\">0</text>\n"
      << "  <text x=\"20\" y=\"" << (kTop + bottom) / 2
      << "\" font-family=\"sans-serif\" font-size=\"12\" transform=\"rotate(-90 20 "
      << (kTop + bottom) / 2 << ")\">GB/s</text>\n"
      << "  <text x=\"" << kLeft << "\" y=\"" << bottom + 20
      << "\" font-family=\"sans-serif\" font-size=\"12\">0</text>\n"
      << "  <text x=\"" << right << "\" y=\"" << bottom + 20
      << "\" text-anchor=\"end\" font-family=\"sans-serif\" font-size=\"12\">32</text>\n"
      << "  <text x=\"" << (kLeft + right) / 2 << "\" y=\"" << bottom + 40
      << "\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"12\">"
      << "offset or stride (floats)</text>\n"
      << Polyline(s.offset, top, "#1f77b4") << Polyline(s.stride, top, "#d62728") << "  <text x=\""
      << right - 160 << "\" y=\"" << kTop + 16
      << "\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#1f77b4\">offset copy</text>\n"
      << "  <text x=\"" << right - 160 << "\" y=\"" << kTop + 32
      << "\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#d62728\">strided copy</text>\n"
      << "</svg>\n";
  return out.str();
}

namespace {

// The numbers of every point of the n-th <polyline>, or why there are none.
std::string PolylinePoints(const std::string& svg, int which, std::vector<double>& xy) {
  static const std::regex polyline("<polyline[^>]*points=\"([^\"]*)\"");
  auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline);
  for (int i = 0; i < which && it != std::sregex_iterator(); ++i) ++it;
  if (it == std::sregex_iterator()) return "polyline " + std::to_string(which + 1) + " is missing";
  std::istringstream in((*it)[1].str());
  std::string pair;
  while (in >> pair) {
    double x = 0, y = 0;
    char comma = 0;
    std::istringstream p(pair);
    if (!(p >> x >> comma >> y) || comma != ',') return "a malformed point '" + pair + "'";
    xy.push_back(x);
    xy.push_back(y);
  }
  return "";
}

}  // namespace

std::string CheckBandwidthFiles(const std::string& table, const std::string& svg) {
  static const std::regex gpu_line("(^|\n)# GPU: (.+)\n");
  static const std::regex date_line("(^|\n)# date: ([0-9]{4}-[0-9]{2}-[0-9]{2})\n");
  std::smatch gpu, date;
  if (!std::regex_search(table, gpu, gpu_line)) return "the table names no GPU";
  if (!std::regex_search(table, date, date_line)) return "the table has no date (YYYY-MM-DD)";
  static const std::regex row("(^|\n)(offset|stride) ([0-9]+) ([0-9.]+)(?=\n)");
  int offsets = 0, strides = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row);
       it != std::sregex_iterator(); ++it) {
    if (std::stod((*it)[4].str()) <= 0)
      return "a row with no bandwidth: " + (*it)[2].str() + " " + (*it)[3].str();
    ((*it)[2].str() == "offset" ? offsets : strides) += 1;
  }
  if (offsets != kOffsets || strides != kStrides)
    return "the table has " + std::to_string(offsets) + " offset and " + std::to_string(strides) +
           " stride rows, not 33 and 32";

  const std::string trimmed = svg.substr(0, svg.find_last_not_of(" \n") + 1);
  if (svg.rfind("<svg", 0) != 0 || trimmed.size() < 6 ||
      trimmed.compare(trimmed.size() - 6, 6, "</svg>") != 0)
    return "the plot is not one <svg> element";
  if (svg.find(Xml(gpu[2].str())) == std::string::npos) return "the plot does not name the GPU";
  if (svg.find(date[2].str()) == std::string::npos) return "the plot does not carry the date";
  const int counts[2] = {kOffsets, kStrides};
  for (int curve = 0; curve < 2; ++curve) {
    std::vector<double> xy;
    if (std::string why = PolylinePoints(svg, curve, xy); !why.empty()) return "the plot: " + why;
    if (static_cast<int>(xy.size()) != 2 * counts[curve])
      return "the plot's curve " + std::to_string(curve + 1) + " has " +
             std::to_string(xy.size() / 2) + " points, not " + std::to_string(counts[curve]);
    for (std::size_t i = 0; i < xy.size(); i += 2)
      if (xy[i] < 0 || xy[i] > kWidth || xy[i + 1] < 0 || xy[i + 1] > kHeight)
        return "the plot's curve " + std::to_string(curve + 1) + " leaves the view box";
  }
  return "";
}

}  // namespace lab02
