#include "class_page.h"

#include <algorithm>
#include <cstdio>

#include "class_stats.h"
#include "html_page.h"
#include "text.h"

namespace labkit {
namespace {

std::string Fixed(double x, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, x);
  return text;
}

// Ten bars, one per tenth of the points available, with their counts above them.
std::string HistogramSvg(const ClassStats& stats) {
  const int most = std::max(1, *std::max_element(stats.bins, stats.bins + 10));
  const int width = 600, height = 200, bar = 50, gap = 10, top = 20, bottom = 30;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height + top + bottom) +
                    "\" role=\"img\" aria-label=\"score histogram\">\n";
  for (int b = 0; b < 10; ++b) {
    const int h = stats.bins[b] * height / most;
    const int x = b * (bar + gap);
    const int y = top + height - h;
    svg += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           std::to_string(bar) + "\" height=\"" + std::to_string(h) + "\" fill=\"#4a7bd0\"/>\n";
    svg += "<text x=\"" + std::to_string(x + bar / 2) + "\" y=\"" + std::to_string(y - 4) +
           "\" text-anchor=\"middle\" font-size=\"12\">" + std::to_string(stats.bins[b]) +
           "</text>\n";
    svg += "<text x=\"" + std::to_string(x + bar / 2) + "\" y=\"" +
           std::to_string(top + height + 18) + "\" text-anchor=\"middle\" font-size=\"11\">" +
           std::to_string(b * 10) + "%</text>\n";
  }
  return svg + "</svg>\n";
}

std::string PassRates(const ClassStats& stats) {
  std::string html =
      "<table>\n<tr><th>exercise</th><th>passed</th><th>pass rate</th><th></th></tr>\n";
  for (const ExercisePassRate& p : stats.pass_rates) {
    const double rate = p.graded > 0 ? 100.0 * p.passed / p.graded : 0;
    html += "<tr><td>" + HtmlEscaped(p.id + ": " + p.title) + "</td><td class=\"num\">" +
            std::to_string(p.passed) + " of " + std::to_string(p.graded) +
            "</td><td class=\"num\">" + Fixed(rate, 0) +
            "%</td><td style=\"width:12rem\"><div class=\"bar\" style=\"width:" + Fixed(rate, 0) +
            "%\"></div></td></tr>\n";
  }
  return html + "</table>\n";
}

std::string Causes(const ClassStats& stats) {
  if (stats.causes.empty()) return "<p>No failures.</p>\n";
  std::string html =
      "<table>\n<tr><th>students</th><th>exercise</th><th>status</th>"
      "<th>cause</th><th>one example</th></tr>\n";
  for (std::size_t i = 0; i < stats.causes.size() && i < 15; ++i) {
    const CauseGroup& g = stats.causes[i];
    html += "<tr><td class=\"num\">" + std::to_string(g.count) + "</td><td>" + HtmlEscaped(g.item) +
            "</td><td>" + HtmlEscaped(g.status) + "</td><td>" + HtmlEscaped(g.cause) + "</td><td>" +
            HtmlEscaped(g.example_student) + ": " + HtmlEscaped(g.example) + "</td></tr>\n";
  }
  return html + "</table>\n";
}

std::string SpeedRows(const std::vector<StudentSpeed>& speeds) {
  std::string html =
      "<table>\n<tr><th>student</th><th>speedup</th><th>the reference's</th>"
      "<th>points</th></tr>\n";
  for (const StudentSpeed& s : speeds)
    html += "<tr><td><a href=\"results/" + HtmlEscaped(s.slug) + "/feedback.html\">" +
            HtmlEscaped(s.name) + "</a></td><td class=\"num\">" + Fixed(s.speedup, 2) +
            "x</td><td class=\"num\">" + Fixed(s.reference_speedup, 2) +
            "x</td><td class=\"num\">" + FormatPoints(s.score) + " / " + FormatPoints(s.max_score) +
            "</td></tr>\n";
  return html + "</table>\n";
}

std::string Speeds(const LabSpec& spec, const ClassStats& stats) {
  if (!spec.speed) return "";
  std::string html = "<h2>Speed</h2>\n";
  if (stats.speeds.empty())
    return html + "<p>No speed was measured in this batch (it is measured on a GPU only).</p>\n";
  const std::size_t n = std::min<std::size_t>(5, stats.speeds.size());
  html += "<h3>Slowest</h3>\n" +
          SpeedRows({stats.speeds.begin(), stats.speeds.begin() + static_cast<long>(n)});
  html += "<h3>Fastest</h3>\n" +
          SpeedRows({stats.speeds.rbegin(), stats.speeds.rbegin() + static_cast<long>(n)});
  return html;
}

std::string Students(const std::vector<GradebookRow>& rows) {
  std::string html = "<table>\n<tr><th>student</th><th>status</th><th>points</th></tr>\n";
  for (const GradebookRow& row : rows) {
    const bool graded = row.result && row.entry.status == "graded";
    const std::string name = HtmlEscaped(row.entry.name);
    html += "<tr><td>" +
            (graded ? "<a href=\"results/" + HtmlEscaped(row.entry.slug) + "/feedback.html\">" +
                          name + "</a>"
                    : name) +
            "</td><td>" + HtmlEscaped(graded ? "graded" : "not graded: " + row.entry.reason) +
            "</td><td class=\"num\">" +
            (graded ? FormatPoints(row.result->total) + " / " + FormatPoints(row.result->max_total)
                    : std::string()) +
            "</td></tr>\n";
  }
  return html + "</table>\n";
}

}  // namespace

std::string ClassPageHtml(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  const ClassStats stats = ComputeClassStats(spec, rows);
  std::string body = "<h1>" + HtmlEscaped(spec.id + ": " + spec.title) + "</h1>\n<p>" +
                     std::to_string(stats.students) +
                     " submissions: " + std::to_string(stats.graded) + " graded, " +
                     std::to_string(stats.not_graded) + " not graded" +
                     (stats.not_graded > 0 ? " (run the same command again to retry them)" : "") +
                     ". Every number is also in gradebook.csv.</p>\n";
  body +=
      "<h2>Scores</h2>\n<p>Students by share of the points available.</p>\n" + HistogramSvg(stats);
  body += "<h2>Pass rate per exercise</h2>\n" + PassRates(stats);
  body += "<h2>Most common causes of failure</h2>\n" + Causes(stats);
  body += Speeds(spec, stats);
  body += "<h2>Students</h2>\n" + Students(rows);
  return HtmlDocument(spec.id + ": class results", body);
}

}  // namespace labkit
