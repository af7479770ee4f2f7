#include "gradebook.h"

#include <gtest/gtest.h>

#include "class_page.h"
#include "class_stats.h"
#include "feedback.h"
#include "html_check.h"

namespace labkit {
namespace {

// Lab 03's shape, as the gradebook sees it: rows given, tiled 30, tiled_any 40, speed 30.
LabSpec Lab() {
  LabSpec spec;
  spec.id = "03_tiled_matmul";
  spec.title = "Tiled <matmul>";
  Exercise rows, tiled, any;
  rows.id = "rows";
  rows.given = true;
  tiled.id = "tiled";
  tiled.title = "Shared-memory tiles";
  tiled.points = 30;
  any.id = "tiled_any";
  any.title = "Any size";
  any.points = 40;
  spec.exercises = {rows, tiled, any};
  Speed speed;
  speed.exercise = "tiled_any";
  speed.points = 30;
  spec.speed = speed;
  return spec;
}

ExerciseResult Item(const std::string& id, double points, GradeStatus status,
                    const std::string& message = "", const std::string& cause = "") {
  ExerciseResult e;
  e.id = id;
  e.title = id;
  e.status = status;
  e.max_score = points;
  e.score = status == GradeStatus::kPassed ? points : 0;
  e.message = message;
  e.cause = cause;
  return e;
}

GradebookRow Graded(const std::string& name, std::vector<ExerciseResult> exercises,
                    std::optional<SpeedResult> speed = std::nullopt) {
  GradebookRow row;
  row.entry = {name, name, "graded", "", 0, 100};
  GradeResult r;
  r.lab = "03_tiled_matmul";
  r.submission = name;
  r.backend = "cpu";
  r.exercises = std::move(exercises);
  if (!speed) {
    speed = SpeedResult{};
    speed->exercise = "tiled_any";
    speed->max_score = 30;
    speed->status = GradeStatus::kNotMeasured;
    speed->message = "speed is not measured on the CPU backend; run on a GPU";
    r.speed_not_measured = true;
  }
  r.speed = speed;
  for (const ExerciseResult& e : r.exercises) r.total += e.score;
  r.total += r.speed->score;
  r.max_total = 100;
  row.entry.total = r.total;
  row.result = r;
  return row;
}

// Two students whose wrong results differ in every number, a compile error, one not graded.
std::vector<GradebookRow> Class() {
  const std::string wrong = "wrong result in case 29x29x29 (m x n x k):\nexpected ";
  std::vector<GradebookRow> rows = {
      Graded("ana",
             {Item("tiled", 30, GradeStatus::kPassed),
              Item("tiled_any", 40, GradeStatus::kFailed, wrong + "1.5 at row 3", "wrong_result")}),
      Graded("bo", {Item("tiled", 30, GradeStatus::kPassed),
                    Item("tiled_any", 40, GradeStatus::kFailed, wrong + "7.25 at row 28",
                         "wrong_result")}),
      Graded("<script>alert(1)</script>",
             {Item("tiled", 30, GradeStatus::kCompileError, "matmul.cu:3: error", "compile"),
              Item("tiled_any", 40, GradeStatus::kCompileError, "matmul.cu:3: error", "compile")})};
  GradebookRow missing;
  missing.entry = {"dee", "dee", "not_graded", "the grader failed: disk full", 0, 0};
  rows.push_back(missing);
  return rows;
}

TEST(Gradebook, NumberColumnsHoldNumbersOrNothing) {
  const std::string csv = GradebookCsv(Lab(), Class());
  EXPECT_EQ(csv.substr(0, csv.find('\r')),
            "student,status,tiled,tiled_any,speed,total,max_total,speedup,causes,feedback,note");
  // Speed not measured: an empty speed and speedup, never the words "not measured".
  EXPECT_NE(csv.find("\r\nana,graded,30,0,,30,100,,tiled_any:wrong_result,"
                     "results/ana/feedback.txt,\r\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\r\ndee,not_graded,,,,,,,,,the grader failed: disk full\r\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(csv.find("not measured"), std::string::npos);
}

TEST(Gradebook, MeasuredSpeedIsANumber) {
  SpeedResult speed;
  speed.exercise = "tiled_any";
  speed.status = GradeStatus::kPassed;
  speed.score = 17.61;
  speed.max_score = 30;
  speed.speedup = 2.617;
  const std::string csv = GradebookCsv(Lab(), {Graded("eve",
                                                      {Item("tiled", 30, GradeStatus::kPassed),
                                                       Item("tiled_any", 40, GradeStatus::kPassed)},
                                                      speed)});
  EXPECT_NE(csv.find("\r\neve,graded,30,40,17.61,87.61,100,2.62,,results/eve/feedback.txt,\r\n"),
            std::string::npos)
      << csv;
}

// Failures are counted by cause, not by their text (which names each student's own numbers).
TEST(Gradebook, SummaryGroupsFailuresByCause) {
  const std::string summary = BatchSummary(Lab(), Class());
  EXPECT_NE(summary.find("  2 x tiled_any: failed, wrong_result  (e.g. ana: wrong result in case "
                         "29x29x29 (m x n x k): expected 1.5 at row 3)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  1 x tiled: compile_error, compile"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  dee: the grader failed: disk full"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  tiled_any: 0 of 3"), std::string::npos) << summary;
}

TEST(ClassStats, HistogramAndSpeeds) {
  const ClassStats stats = ComputeClassStats(Lab(), Class());
  EXPECT_EQ(stats.graded, 3);
  EXPECT_EQ(stats.not_graded, 1);
  EXPECT_EQ(stats.bins[3], 2);  // 30 of 100
  EXPECT_EQ(stats.bins[0], 1);
  EXPECT_TRUE(stats.speeds.empty());
}

TEST(ClassPage, WellFormedWithEverySectionAndEscaped) {
  const std::string html = ClassPageHtml(Lab(), Class());
  const HtmlShape shape = ParseHtmlShape(html);
  EXPECT_EQ(shape.error, "") << html;
  EXPECT_EQ(shape.Count("svg"), 1);
  EXPECT_EQ(shape.Count("rect"), 10);  // the histogram's bars
  EXPECT_GE(shape.Count("table"), 3);  // pass rates, causes, students
  EXPECT_EQ(shape.Count("script"), 0) << "a student's name must never become markup";
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Tiled &lt;matmul&gt;"), std::string::npos);
  EXPECT_NE(html.find("No speed was measured"), std::string::npos);
}

TEST(Feedback, TextIsTheTerminalReportAndHtmlIsWellFormed) {
  const GradebookRow row = Class()[2];
  EXPECT_EQ(FeedbackText(*row.result), FormatTerminal(*row.result, {}));
  const std::string html = FeedbackHtml(*row.result);
  const HtmlShape shape = ParseHtmlShape(html);
  EXPECT_EQ(shape.error, "") << html;
  EXPECT_EQ(shape.Count("script"), 0);
  EXPECT_GE(shape.Count("pre"), 2);  // each failed exercise's message
  EXPECT_NE(html.find("matmul.cu:3: error"), std::string::npos);
}

TEST(Feedback, SpeedAgainstTheGivenKernelAndTheReference) {
  SpeedResult speed;
  speed.exercise = "tiled_any";
  speed.status = GradeStatus::kPassed;
  speed.student_ms = 0.41;
  speed.baseline_ms = 1.92;
  speed.reference_ms = 0.3;
  speed.reference_baseline_ms = 1.9;
  speed.speedup = 1.92 / 0.41;
  speed.reference_speedup = 1.9 / 0.3;
  speed.score = 20;
  speed.max_score = 30;
  const GradebookRow row = Graded("fay", {Item("tiled", 30, GradeStatus::kPassed)}, speed);
  const std::string html = FeedbackHtml(*row.result);
  EXPECT_EQ(ParseHtmlShape(html).error, "");
  EXPECT_NE(html.find("<td>yours</td><td class=\"num\">0.410 ms</td><td class=\"num\">4.68x"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("the reference solution</td><td class=\"num\">0.300 ms"), std::string::npos);
}

TEST(HtmlCheck, CatchesUnclosedAndMisnested) {
  EXPECT_EQ(ParseHtmlShape("<p><b>x</p></b>").error, "</p> closes <b>");
  EXPECT_EQ(ParseHtmlShape("<div>").error, "<div> is never closed");
  EXPECT_EQ(ParseHtmlShape("<p>a < b</p>").error, "'<' that starts no tag: < b</p>");
}

}  // namespace
}  // namespace labkit
