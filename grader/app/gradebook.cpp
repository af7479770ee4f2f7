#include "gradebook.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace labkit {
namespace {

// The first sentence-ish of a message: its first line, and the next one too when the first only
// introduces it ("wrong result in case 16x16x16:").
std::string FirstLine(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  if (!line.empty() && line.back() == ':' && end != std::string::npos) {
    const auto next = text.find('\n', end + 1);
    line += " " + text.substr(end + 1, next == std::string::npos ? next : next - end - 1);
  }
  return line;
}

const ExerciseResult* FindResult(const GradeResult& r, const std::string& id) {
  for (const auto& e : r.exercises)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string GradebookCsv(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  std::ostringstream csv;
  csv << "student,status";
  for (const Exercise& ex : spec.exercises)
    if (!ex.given) csv << "," << ex.id;
  if (spec.speed) csv << ",speed";
  csv << ",total,max_total,message\r\n";
  for (const GradebookRow& row : rows) {
    csv << CsvField(row.entry.name) << "," << row.entry.status;
    std::string message = row.entry.reason;
    for (const Exercise& ex : spec.exercises) {
      if (ex.given) continue;
      const ExerciseResult* e = row.result ? FindResult(*row.result, ex.id) : nullptr;
      csv << "," << (e ? FormatPoints(e->score) : "");
      if (e && message.empty() && !e->message.empty()) message = ex.id + ": " + FirstLine(e->message);
    }
    if (spec.speed) {
      const auto& speed = row.result ? row.result->speed : std::nullopt;
      csv << "," << (!speed                                          ? ""
                     : speed->status == GradeStatus::kNotMeasured ? "not measured"
                                                                   : FormatPoints(speed->score));
    }
    csv << "," << (row.result ? FormatPoints(row.result->total) : "") << ","
        << (row.result ? FormatPoints(row.result->max_total) : "") << "," << CsvField(message)
        << "\r\n";
  }
  return csv.str();
}

std::string BatchSummary(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  std::ostringstream out;
  int graded = 0, not_graded = 0;
  std::vector<double> fractions;
  std::map<std::string, int> failures;  // "exercise: first line" -> count
  for (const GradebookRow& row : rows) {
    if (!row.result || row.entry.status != "graded") {
      ++not_graded;
      continue;
    }
    ++graded;
    fractions.push_back(row.result->max_total > 0 ? row.result->total / row.result->max_total : 0);
    for (const auto& e : row.result->exercises)
      if (e.status != GradeStatus::kPassed && e.status != GradeStatus::kNotMeasured &&
          !e.message.empty())
        ++failures[e.id + ": " + FirstLine(e.message).substr(0, 100)];
  }
  out << spec.id << ": " << graded << " graded, " << not_graded << " not graded"
      << (not_graded > 0 ? " (grader faults: run the same command again to retry them)" : "")
      << "\n\nscores (share of the points available):\n";
  int bins[10] = {};
  for (double f : fractions) ++bins[std::min(9, static_cast<int>(f * 10))];
  for (int b = 0; b < 10; ++b) {
    char label[32];
    std::snprintf(label, sizeof label, "%3d-%3d%%", b * 10, b == 9 ? 100 : b * 10 + 9);
    out << "  " << label << " " << std::string(bins[b], '#') << " " << bins[b] << "\n";
  }
  std::vector<std::pair<int, std::string>> common;
  for (const auto& [text, count] : failures) common.push_back({count, text});
  std::sort(common.begin(), common.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  out << "\nmost common failures:\n";
  if (common.empty()) out << "  (none)\n";
  for (std::size_t i = 0; i < common.size() && i < 8; ++i)
    out << "  " << common[i].first << " x " << common[i].second << "\n";
  return out.str();
}

}  // namespace labkit
