#include "report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace labkit {
namespace {

const char* kGreen = "\033[32m";
const char* kRed = "\033[31m";
const char* kYellow = "\033[33m";
const char* kBold = "\033[1m";
const char* kReset = "\033[0m";

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string Indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += (line.empty() ? "" : prefix + line) + "\n";
  return out;
}

std::string StatusWords(GradeStatus s) {
  std::string words = ToString(s);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

// After a title: the kind of failure when the mark alone does not say it.
std::string StatusSuffix(GradeStatus s) {
  if (s == GradeStatus::kPassed || s == GradeStatus::kFailed) return "";
  return " (" + StatusWords(s) + ")";
}

struct Row {
  GradeStatus status;
  std::string id;
  double score;
  double max_score;
  std::string what;
};

std::string Mark(GradeStatus s, const TerminalOptions& o) {
  std::string mark, colour;
  if (s == GradeStatus::kPassed) {
    mark = o.unicode ? "\u2713" : "PASS";
    colour = kGreen;
  } else if (s == GradeStatus::kNotMeasured) {
    mark = o.unicode ? "-" : "----";
    colour = kYellow;
  } else {
    mark = o.unicode ? "\u2717" : "FAIL";
    colour = kRed;
  }
  return o.color ? colour + mark + kReset : mark;
}

std::string Describe(const DeviceInfo& d) {
  std::string s = d.name.empty() ? "unknown device" : d.name;
  std::vector<std::string> parts;
  if (!d.compute_capability.empty()) parts.push_back("cc " + d.compute_capability);
  if (!d.driver.empty()) parts.push_back("driver " + d.driver);
  if (!d.runtime.empty()) parts.push_back("runtime " + d.runtime);
  if (d.sm_clock_mhz > 0) parts.push_back(std::to_string(d.sm_clock_mhz) + " MHz");
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? " (" : ", ") + parts[i];
  return parts.empty() ? s : s + ")";
}

}  // namespace

void GradeResult::SetScores(const Scores& scores) {
  exercises = scores.exercises;
  speed = scores.speed;
  total = scores.total;
  max_total = scores.max_total;
  speed_not_measured = scores.speed_not_measured;
}

std::string FormatPoints(double points) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", RoundPoints(points) + 0.0);  // + 0.0: no "-0"
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

namespace {
// A pass whose technique check could not run here is not a plain pass: the row says so.
constexpr const char* kUncheckedSuffix = " (not final: a check could not run here, see the note)";
constexpr const char* kUncheckedSentence =
    "This pass is not final: a check that decides the points could not run here (see the note).";
}  // namespace

std::string FormatTerminal(const GradeResult& r, const TerminalOptions& o) {
  std::vector<Row> rows;
  for (const ExerciseResult& e : r.exercises)
    rows.push_back({e.status, e.id, e.score, e.max_score,
                    e.title + StatusSuffix(e.status) + (e.unchecked ? kUncheckedSuffix : "")});
  if (r.speed)
    rows.push_back(
        {r.speed->status, "speed", r.speed->score, r.speed->max_score,
         r.speed->exercise + (r.speed->status == GradeStatus::kNotMeasured ? " (not measured)"
                              : r.speed->speedup > 0
                                  ? ", speedup " + FormatPoints(r.speed->speedup) + "x"
                                  : " (" + StatusWords(r.speed->status) + ")")});
  size_t id_w = 5, score_w = 1, max_w = 1;  // "total"
  for (const Row& row : rows) {
    id_w = std::max(id_w, row.id.size());
    score_w = std::max(score_w, FormatPoints(row.score).size());
    max_w = std::max(max_w, FormatPoints(row.max_score).size());
  }
  score_w = std::max(score_w, FormatPoints(r.total).size());
  max_w = std::max(max_w, FormatPoints(r.max_total).size());
  const size_t mark_w = o.unicode ? 1 : 4;

  std::string out = (o.color ? std::string(kBold) : "") + r.lab +
                    (o.color ? std::string(kReset) : "") +
                    (r.lab_title.empty() ? "" : ": " + r.lab_title) + "\n";
  out += "submission " + r.submission + "\n";
  out += "backend    " + r.backend + ", " + Describe(r.device) + "\n";
  if (r.device.pageable_memory_access == 1)
    out += "warning    " + std::string(kKernelsReachHostMemory) + "\n";
  out += "seed       " + std::to_string(r.seed) + "\n\n";
  for (const Row& row : rows)
    out += Mark(row.status, o) + "  " + Pad(row.id, id_w) + "  " +
           PadLeft(FormatPoints(row.score), score_w) + " / " +
           Pad(FormatPoints(row.max_score), max_w) + "  " + row.what + "\n";
  out += std::string(mark_w, ' ') + "  " + Pad("total", id_w) + "  " +
         PadLeft(FormatPoints(r.total), score_w) + " / " + FormatPoints(r.max_total) +
         (r.speed_not_measured ? " (speed not measured)" : "") + "\n";

  for (const ExerciseResult& e : r.exercises) {
    if (e.message.empty() && e.notes.empty()) continue;
    out += "\n" + e.id +
           (e.status == GradeStatus::kPassed ? "" : " (" + StatusWords(e.status) + ")") + ":\n" +
           Indent(e.message, "  ");
    for (const std::string& n : e.notes) out += "  note: " + n + "\n";
  }
  if (r.speed && !r.speed->message.empty()) out += "\nspeed:\n" + Indent(r.speed->message, "  ");
  return out;
}

nlohmann::json ToJson(const GradeResult& r) {
  using nlohmann::json;
  json exercises = json::array();
  for (const ExerciseResult& e : r.exercises)
    exercises.push_back({{"id", e.id},
                         {"title", e.title},
                         {"status", ToString(e.status)},
                         {"score", e.score},
                         {"max_score", e.max_score},
                         {"message", e.message},
                         {"notes", e.notes},
                         {"unchecked", e.unchecked},
                         
{"cause", e.cause}});
  json speed = nullptr;
  if (r.speed) {
    const SpeedResult& s = *r.speed;
    speed = {{"exercise", s.exercise},
             {"status", ToString(s.status)},
             {"score", s.score},
             {"max_score", s.max_score},
             {"student_ms", s.student_ms},
             {"baseline_ms", s.baseline_ms},
             {"reference_ms", s.reference_ms},
             {"reference_baseline_ms", s.reference_baseline_ms},
             {"speedup", s.speedup},
             {"reference_speedup", s.reference_speedup},
             {"target_speedup", s.target_speedup},
             {"message", s.message},
             {"cause", s.cause}};
  }
  return {{"schema_version", kResultsSchemaVersion},
          {"lab", r.lab},
          {"lab_title", r.lab_title},
          {"submission", r.submission},
          {"backend", r.backend},
          {"device",
           {{"name", r.device.name},
            {"driver", r.device.driver},
            {"runtime", r.device.runtime},
            {"cc", r.device.compute_capability},
            {"sm_clock_mhz", r.device.sm_clock_mhz},
            {"mem_clock_mhz", r.device.mem_clock_mhz},
            {"pageable_memory_access", r.device.pageable_memory_access == 1}}},
          // A string: JSON readers that hold numbers as doubles would round a 64-bit seed.
          {"seed", std::to_string(r.seed)},
          {"timestamp", r.timestamp},
          {"execution_time_seconds", r.execution_time_seconds},
          {"exercises", exercises},
          {"speed", speed},
          {"total", r.total},
          {"max_total", r.max_total},
          {"speed_not_measured", r.speed_not_measured}};
}

Result<GradeResult> GradeResultFromJson(const nlohmann::json& j) {
  std::string where = "results";
  try {
    auto status = [&](const nlohmann::json& o, const std::string& at) {
      where = at + ".status";
      const std::optional<GradeStatus> s = ParseGradeStatus(o.at("status").get<std::string>());
      if (!s)
        throw std::runtime_error("unknown status \"" + o.at("status").get<std::string>() + "\"");
      return *s;
    };
    where = "schema_version";
    if (j.at("schema_version").get<int>() != kResultsSchemaVersion)
      return MakeError("results: schema_version " + j.at("schema_version").dump() +
                       " is not the supported " + std::to_string(kResultsSchemaVersion));
    GradeResult r;
    for (auto [key, field] : {std::pair{"lab", &r.lab},
                              {"lab_title", &r.lab_title},
                              {"submission", &r.submission},
                              {"backend", &r.backend},
                              {"timestamp", &r.timestamp}}) {
      where = key;
      *field = j.at(key).get<std::string>();
    }
    where = "device";
    const nlohmann::json& d = j.at("device");
    r.device.name = d.at("name").get<std::string>();
    r.device.driver = d.at("driver").get<std::string>();
    r.device.runtime = d.at("runtime").get<std::string>();
    r.device.compute_capability = d.at("cc").get<std::string>();
    r.device.sm_clock_mhz = d.at("sm_clock_mhz").get<int64_t>();
    r.device.mem_clock_mhz = d.at("mem_clock_mhz").get<int64_t>();
    r.device.pageable_memory_access = d.value("pageable_memory_access", false) ? 1 : 0;
    where = "seed";
    r.seed = std::stoull(j.at("seed").get<std::string>());
    where = "execution_time_seconds";
    r.execution_time_seconds = j.at("execution_time_seconds").get<double>();
    for (size_t i = 0; i < j.at("exercises").size(); ++i) {
      const nlohmann::json& e = j.at("exercises").at(i);
      where = "exercises[" + std::to_string(i) + "]";
      ExerciseResult x;
      x.id = e.at("id").get<std::string>();
      x.title = e.at("title").get<std::string>();
      x.score = e.at("score").get<double>();
      x.max_score = e.at("max_score").get<double>();
      x.message = e.at("message").get<std::string>();
      x.notes = e.at("notes").get<std::vector<std::string>>();
      x.unchecked = e.value("unchecked", false);
      x.cause = e.value("cause", "");  // added after schema 1 was published: optional
      x.status = status(e, where);
      r.exercises.push_back(x);
    }
    where = "speed";
    if (!j.at("speed").is_null()) {
      const nlohmann::json& s = j.at("speed");
      SpeedResult x;
      x.exercise = s.at("exercise").get<std::string>();
      x.score = s.at("score").get<double>();
      x.max_score = s.at("max_score").get<double>();
      x.student_ms = s.at("student_ms").get<double>();
      x.baseline_ms = s.at("baseline_ms").get<double>();
      x.reference_ms = s.at("reference_ms").get<double>();
      x.reference_baseline_ms = s.at("reference_baseline_ms").get<double>();
      x.speedup = s.at("speedup").get<double>();
      x.reference_speedup = s.at("reference_speedup").get<double>();
      x.target_speedup = s.at("target_speedup").get<double>();
      x.message = s.at("message").get<std::string>();
      x.cause = s.value("cause", "");
      x.status = status(s, "speed");
      r.speed = x;
    }
    where = "total";
    r.total = j.at("total").get<double>();
    where = "max_total";
    r.max_total = j.at("max_total").get<double>();
    where = "speed_not_measured";
    r.speed_not_measured = j.at("speed_not_measured").get<bool>();
    return r;
  } catch (const std::exception& e) {
    return MakeError("results: " + where + ": " + e.what());
  }
}

nlohmann::json ToGradescope(const GradeResult& r, const GradescopeOptions& o) {
  using nlohmann::json;
  json tests = json::array();
  for (const ExerciseResult& e : r.exercises) {
    std::string output = e.message;
    if (e.unchecked) output += std::string(output.empty() ? "" : "\n") + kUncheckedSentence;
    for (const std::string& n : e.notes) output += (output.empty() ? "" : "\n") + ("note: " + n);
    tests.push_back({{"name", e.id + ": " + e.title},
                     {"score", e.score},
                     {"max_score", e.max_score},
                     {"status", e.status == GradeStatus::kPassed ? "passed" : "failed"},
                     {"output", output},
                     {"visibility", o.visibility}});
  }
  const bool speed_pending = r.speed && r.speed->status == GradeStatus::kNotMeasured;
  if (speed_pending) {
    // Gradescope's convention for a test that is shown but not scored: no score, max_score or
    // status. A 0 / 30 "failed" test would read as every student's failure.
    tests.push_back({{"name", "speed: " + r.speed->exercise + " (not measured, " +
                                  FormatPoints(r.speed->max_score) + " points graded on a GPU)"},
                     {"output", r.speed->message},
                     {"visibility", o.visibility}});
  } else if (r.speed) {
    tests.push_back({{"name", "speed: " + r.speed->exercise},
                     {"score", r.speed->score},
                     {"max_score", r.speed->max_score},
                     {"status", r.speed->status == GradeStatus::kPassed ? "passed" : "failed"},
                     {"output", r.speed->message},
                     {"visibility", o.visibility}});
  }
  // What the total means, said where the student reads it.
  const double graded_here = speed_pending ? r.max_total - r.speed->max_score : r.max_total;
  std::string output = r.lab + ": " + FormatPoints(r.total) + " / " + FormatPoints(graded_here);
  if (speed_pending)
    output += " correctness points graded here. Speed (" + FormatPoints(r.speed->max_score) +
              " points) is not measured on this machine (no GPU): it is not part of this score "
              "and is graded separately on a GPU.";
  output +=
      "\nbackend: " + r.backend + ", " + Describe(r.device) + "\nseed: " + std::to_string(r.seed);
  return {{"score", r.total},
          {"execution_time", r.execution_time_seconds},
          {"output", output},
          {"visibility", o.visibility},
          {"tests", tests}};
}

}  // namespace labkit
