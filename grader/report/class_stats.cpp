#include "class_stats.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace labkit {
namespace {

void Count(std::map<std::tuple<std::string, std::string, std::string>, CauseGroup>& groups,
           const std::string& item, GradeStatus status, const std::string& cause,
           const std::string& message, const std::string& student) {
  const std::string status_text = ToString(status);
  const std::string key = cause.empty() ? status_text : cause;
  CauseGroup& g = groups[{item, status_text, key}];
  if (g.count++ == 0) {
    g.item = item;
    g.status = status_text;
    g.cause = key;
    g.example = FirstLine(message).substr(0, 160);
    g.example_student = student;
  }
}

}  // namespace

std::string FirstLine(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  if (!line.empty() && line.back() == ':' && end != std::string::npos) {
    const auto next = text.find('\n', end + 1);
    line += " " + text.substr(end + 1, next == std::string::npos ? next : next - end - 1);
  }
  return line;
}

ClassStats ComputeClassStats(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  ClassStats stats;
  for (const Exercise& ex : spec.exercises)
    if (!ex.given) stats.pass_rates.push_back({ex.id, ex.title, 0, 0});
  std::map<std::tuple<std::string, std::string, std::string>, CauseGroup> groups;
  for (const GradebookRow& row : rows) {
    ++stats.students;
    if (!row.result || row.entry.status != "graded") {
      ++stats.not_graded;
      stats.not_graded_reasons.push_back({row.entry.name, row.entry.reason});
      continue;
    }
    const GradeResult& r = *row.result;
    ++stats.graded;
    const double share = r.max_total > 0 ? r.total / r.max_total : 0;
    ++stats.bins[std::clamp(static_cast<int>(share * 10), 0, 9)];
    for (const ExerciseResult& e : r.exercises) {
      for (ExercisePassRate& p : stats.pass_rates)
        if (p.id == e.id) {
          ++p.graded;
          if (e.status == GradeStatus::kPassed) ++p.passed;
        }
      if (e.status != GradeStatus::kPassed && e.status != GradeStatus::kNotMeasured)
        Count(groups, e.id, e.status, e.cause, e.message, row.entry.name);
    }
    if (!r.speed) continue;
    const SpeedResult& s = *r.speed;
    if (s.speedup > 0)
      stats.speeds.push_back(
          {row.entry.name, row.entry.slug, s.speedup, s.reference_speedup, s.score, s.max_score});
    if (s.status != GradeStatus::kPassed && s.status != GradeStatus::kNotMeasured)
      Count(groups, "speed", s.status, s.cause, s.message, row.entry.name);
  }
  for (auto& [key, group] : groups) stats.causes.push_back(group);
  std::stable_sort(stats.causes.begin(), stats.causes.end(),
                   [](const CauseGroup& a, const CauseGroup& b) { return a.count > b.count; });
  std::sort(stats.speeds.begin(), stats.speeds.end(),
            [](const StudentSpeed& a, const StudentSpeed& b) { return a.speedup < b.speedup; });
  return stats;
}

}  // namespace labkit
