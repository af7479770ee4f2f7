#include "gradebook.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "class_stats.h"

namespace labkit {
namespace {

const ExerciseResult* FindResult(const GradeResult& r, const std::string& id) {
  for (const auto& e : r.exercises)
    if (e.id == id) return &e;
  return nullptr;
}

// "tiled_any:wrong_result; speed:too_slow": what failed, as cause keys.
std::string Causes(const GradeResult& r) {
  std::string causes;
  auto add = [&](const std::string& item, GradeStatus status, const std::string& cause) {
    if (status == GradeStatus::kPassed || status == GradeStatus::kNotMeasured) return;
    causes +=
        (causes.empty() ? "" : "; ") + item + ":" + (cause.empty() ? ToString(status) : cause);
  };
  for (const ExerciseResult& e : r.exercises) add(e.id, e.status, e.cause);
  if (r.speed) add("speed", r.speed->status, r.speed->cause);
  return causes;
}

bool SpeedMeasured(const GradeResult& r) {
  return r.speed && r.speed->status != GradeStatus::kNotMeasured &&
         r.speed->status != GradeStatus::kGraderError;
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

std::string FeedbackPath(const std::string& slug, const std::string& extension) {
  return "results/" + slug + "/feedback." + extension;
}

std::string GradebookCsv(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  std::ostringstream csv;
  csv << "student,status";
  for (const Exercise& ex : spec.exercises)
    if (!ex.given) csv << "," << ex.id;
  if (spec.speed) csv << ",speed";
  csv << ",total,max_total";
  if (spec.speed) csv << ",speedup";
  csv << ",causes,feedback,note\r\n";
  for (const GradebookRow& row : rows) {
    const GradeResult* r = row.result ? &*row.result : nullptr;
    csv << CsvField(row.entry.name) << "," << row.entry.status;
    for (const Exercise& ex : spec.exercises) {
      if (ex.given) continue;
      const ExerciseResult* e = r ? FindResult(*r, ex.id) : nullptr;
      csv << "," << (e ? FormatPoints(e->score) : "");
    }
    // Number columns hold numbers or nothing: a spreadsheet sums them as they are.
    if (spec.speed) csv << "," << (r && SpeedMeasured(*r) ? FormatPoints(r->speed->score) : "");
    csv << "," << (r ? FormatPoints(r->total) : "") << "," << (r ? FormatPoints(r->max_total) : "");
    if (spec.speed) {
      const bool timed = r && SpeedMeasured(*r) && r->speed->speedup > 0;
      csv << "," << (timed ? FormatPoints(r->speed->speedup) : "");
    }
    csv << "," << CsvField(r ? Causes(*r) : "") << ","
        << (r ? FeedbackPath(row.entry.slug, "txt") : "") << "," << CsvField(row.entry.reason)
        << "\r\n";
  }
  return csv.str();
}

std::string BatchSummary(const LabSpec& spec, const std::vector<GradebookRow>& rows) {
  const ClassStats stats = ComputeClassStats(spec, rows);
  std::ostringstream out;
  out << spec.id << ": " << stats.graded << " graded, " << stats.not_graded << " not graded"
      << (stats.not_graded > 0 ? " (run the same command again to retry them)" : "")
      << "\n\nscores (share of the points available):\n";
  for (int b = 0; b < 10; ++b) {
    char label[32];
    std::snprintf(label, sizeof label, "%3d-%3d%%", b * 10, b == 9 ? 100 : b * 10 + 9);
    out << "  " << label << " " << std::string(stats.bins[b], '#') << " " << stats.bins[b] << "\n";
  }
  out << "\npassed, per exercise:\n";
  for (const ExercisePassRate& p : stats.pass_rates)
    out << "  " << p.id << ": " << p.passed << " of " << p.graded << "\n";
  out << "\nmost common causes of failure (count x exercise: status, cause; one example):\n";
  if (stats.causes.empty()) out << "  (none)\n";
  for (std::size_t i = 0; i < stats.causes.size() && i < 10; ++i) {
    const CauseGroup& g = stats.causes[i];
    out << "  " << g.count << " x " << g.item << ": " << g.status
        << (g.cause == g.status ? "" : ", " + g.cause) << "  (e.g. " << g.example_student << ": "
        << g.example.substr(0, 100) << ")\n";
  }
  if (!stats.not_graded_reasons.empty()) {
    out << "\nnot graded (faults of the grader's own, or the submission's time limit):\n";
    for (const auto& [name, reason] : stats.not_graded_reasons)
      out << "  " << name << ": " << FirstLine(reason).substr(0, 160) << "\n";
  }
  return out.str();
}

}  // namespace labkit
