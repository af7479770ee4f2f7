#include "feedback.h"

#include <cstdio>

#include "html_page.h"
#include "text.h"

namespace labkit {
namespace {

std::string StatusClass(GradeStatus s) {
  return s == GradeStatus::kPassed ? "passed" : s == GradeStatus::kFailed ? "failed" : "other";
}

std::string StatusCell(GradeStatus s) {
  std::string words = ToString(s);
  for (char& c : words)
    if (c == '_') c = ' ';
  return "<td class=\"" + StatusClass(s) + "\">" + words + "</td>";
}

std::string Ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", ms);
  return text;
}

std::string Times(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", x);
  return text;
}

std::string SpeedHtml(const SpeedResult& s) {
  std::string html = "<h2>Speed: " + HtmlEscaped(s.exercise) + "</h2>\n";
  if (s.student_ms > 0 && s.baseline_ms > 0) {
    html +=
        "<table>\n<tr><th>kernel</th><th>time</th><th>speedup over the given kernel</th></tr>\n";
    html += "<tr><td>yours</td><td class=\"num\">" + Ms(s.student_ms) + "</td><td class=\"num\">" +
            Times(s.speedup) + "</td></tr>\n";
    html += "<tr><td>the given kernel</td><td class=\"num\">" + Ms(s.baseline_ms) +
            "</td><td class=\"num\">1.00x</td></tr>\n";
    if (s.reference_ms > 0)
      html += "<tr><td>the reference solution</td><td class=\"num\">" + Ms(s.reference_ms) +
              "</td><td class=\"num\">" + Times(s.reference_speedup) + "</td></tr>\n";
    html += "</table>\n";
  }
  if (!s.message.empty()) html += "<p>" + HtmlEscaped(s.message) + "</p>\n";
  return html;
}

}  // namespace

std::string FeedbackText(const GradeResult& result) { return FormatTerminal(result, {}); }

std::string FeedbackHtml(const GradeResult& r) {
  std::string body = "<h1>" + HtmlEscaped(r.lab + (r.lab_title.empty() ? "" : ": " + r.lab_title)) +
                     "</h1>\n<p>Submission <b>" + HtmlEscaped(r.submission) +
                     "</b>, graded on the " + HtmlEscaped(r.backend) + " backend (" +
                     HtmlEscaped(r.device.name) + "), seed " + std::to_string(r.seed) + ".</p>\n";
  body += "<table>\n<tr><th>exercise</th><th>verdict</th><th>points</th></tr>\n";
  for (const ExerciseResult& e : r.exercises)
    body += "<tr><td>" + HtmlEscaped(e.id + ": " + e.title) + "</td>" + StatusCell(e.status) +
            "<td class=\"num\">" + FormatPoints(e.score) + " / " + FormatPoints(e.max_score) +
            "</td></tr>\n";
  if (r.speed)
    body += "<tr><td>speed: " + HtmlEscaped(r.speed->exercise) + "</td>" +
            StatusCell(r.speed->status) + "<td class=\"num\">" +
            (r.speed->status == GradeStatus::kNotMeasured
                 ? std::string("not measured")
                 : FormatPoints(r.speed->score) + " / " + FormatPoints(r.speed->max_score)) +
            "</td></tr>\n";
  body += "<tr><th colspan=\"2\">total</th><th class=\"num\">" + FormatPoints(r.total) + " / " +
          FormatPoints(r.max_total) + (r.speed_not_measured ? " (speed not measured)" : "") +
          "</th></tr>\n</table>\n";
  for (const ExerciseResult& e : r.exercises) {
    if (e.message.empty() && e.notes.empty()) continue;
    // The message holds the first mismatches and the tile map ('#' a wrong tile of C, '.' a right
    // one), laid out in columns: shown as preformatted text.
    body += "<h2>" + HtmlEscaped(e.id) + ": <span class=\"" + StatusClass(e.status) + "\">" +
            HtmlEscaped(ToString(e.status)) + "</span></h2>\n";
    if (!e.message.empty()) body += HtmlPre(e.message);
    if (!e.notes.empty()) {
      body += "<ul>\n";
      for (const std::string& n : e.notes) body += "<li>" + HtmlEscaped(n) + "</li>\n";
      body += "</ul>\n";
    }
  }
  if (r.speed) body += SpeedHtml(*r.speed);
  return HtmlDocument(r.lab + ": " + r.submission, body);
}

}  // namespace labkit
