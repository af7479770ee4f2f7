#include "cli.h"

#include <gtest/gtest.h>

#include <vector>

namespace labkit {
namespace {

Result<CliCommand> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "labgrade");
  return ParseCommandLine(static_cast<int>(args.size()), args.data());
}

TEST(Cli, CheckWithEveryOption) {
  auto r = Parse({"check", "03_tiled_matmul", "--src", "me", "--seed", "42", "--backend", "cpu",
                  "--json", "out.json", "--gradescope", "gs", "--require", "full"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->kind, CliCommand::Kind::kCheck);
  EXPECT_EQ(r->check.lab, "03_tiled_matmul");
  EXPECT_EQ(r->check.src, "me");
  EXPECT_EQ(r->check.seed, 42u);
  EXPECT_EQ(r->check.backend, BackendChoice::kCpu);
  EXPECT_EQ(r->check.json_path, "out.json");
  EXPECT_EQ(r->check.gradescope_dir, "gs");
  EXPECT_EQ(r->check.require, Requirement::kFull);
}

TEST(Cli, NoArgumentsMeansHelp) {
  auto r = Parse({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, CliCommand::Kind::kHelp);
}

TEST(Cli, ErrorsNameTheProblem) {
  EXPECT_EQ(Parse({"check"}).error(), "'check' needs a lab, e.g. 03_tiled_matmul");
  EXPECT_EQ(Parse({"grade-all"}).error(),
            "unknown command 'grade-all' (expected check, grade, gradescope-bundle or starter)");
  EXPECT_EQ(Parse({"check", "x", "--seed", "-1"}).error(),
            "--seed takes a non-negative whole number, got '-1'");
  EXPECT_EQ(Parse({"check", "x", "--backend", "tpu"}).error(),
            "--backend takes auto, gpu or cpu, got 'tpu'");
  EXPECT_EQ(Parse({"check", "x", "--src"}).error(), "--src needs a value");
  EXPECT_EQ(Parse({"check", "x", "--frobnicate"}).error(),
            "unknown option '--frobnicate' for 'check'");
  EXPECT_EQ(Parse({"starter", "x", "--seed", "1"}).error(),
            "unknown option '--seed' for 'starter'");
  EXPECT_EQ(Parse({"check", "x", "y"}).error(), "unexpected argument 'y' (one lab at a time)");
}

TEST(Cli, GradeABatch) {
  auto r = Parse({"grade", "03_tiled_matmul", "--submissions", "class", "--out", "marks", "--jobs",
                  "8", "--regrade", "ana,bo"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->kind, CliCommand::Kind::kGrade);
  EXPECT_EQ(r->batch.lab, "03_tiled_matmul");
  EXPECT_EQ(r->batch.submissions, "class");
  EXPECT_EQ(r->batch.out, "marks");
  EXPECT_EQ(r->batch.jobs, 8);
  EXPECT_EQ(r->batch.regrade, (std::vector<std::string>{"ana", "bo"}));
  EXPECT_FALSE(r->batch.regrade_all);
}

TEST(Cli, GradeNeedsItsFolders) {
  EXPECT_EQ(Parse({"grade", "x", "--out", "o"}).error(), "'grade' needs --submissions DIR");
  EXPECT_EQ(Parse({"grade", "x", "--submissions", "s"}).error(), "'grade' needs --out DIR");
  EXPECT_EQ(Parse({"grade", "x", "--submissions", "s", "--out", "o", "--jobs", "0"}).error(),
            "--jobs takes a number from 1 to 1024");
  EXPECT_EQ(Parse({"gradescope-bundle", "x", "--jobs", "2"}).error(),
            "unknown option '--jobs' for 'gradescope-bundle'");
}

TEST(Cli, RegradeAll) {
  auto r = Parse({"grade", "x", "--submissions", "s", "--out", "o", "--regrade", "all"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->batch.regrade_all);
}

// Every command answers --help with its own options (labgrade check --help once said "unknown
// option").
TEST(Cli, EveryCommandAnswersHelp) {
  for (const char* verb : {"check", "grade", "gradescope-bundle", "starter"}) {
    auto r = Parse({verb, "--help"});
    ASSERT_TRUE(r.ok()) << verb << ": " << r.error();
    EXPECT_EQ(r->kind, CliCommand::Kind::kHelp) << verb;
    EXPECT_NE(r->help.find(verb), std::string::npos) << r->help;
  }
  EXPECT_NE(Parse({"check", "-h"})->help.find("--tsan"), std::string::npos);
  EXPECT_NE(Parse({"grade", "x", "--help"})->help.find("--regrade"), std::string::npos);
  EXPECT_EQ(Parse({"--help"})->help, UsageText());
}

TEST(Cli, CheckFlagsAndWork) {
  auto r = Parse({"check", "x", "--color", "--tsan", "--work", "w", "--require", "given-only",
                  "--manifest", "m.json"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->check.color);
  EXPECT_TRUE(r->check.thread_sanitizer);
  EXPECT_EQ(r->check.work_dir, "w");
  EXPECT_EQ(r->check.require, Requirement::kGivenOnly);
  EXPECT_EQ(r->manifest, "m.json");
  EXPECT_FALSE(r->check.seed.has_value());
}

TEST(Cli, BundleNeedsOut) {
  auto r = Parse({"gradescope-bundle", "03_tiled_matmul", "--out", "gs"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->kind, CliCommand::Kind::kBundle);
  EXPECT_EQ(r->bundle.out, "gs");
  EXPECT_EQ(Parse({"gradescope-bundle", "x"}).error(), "'gradescope-bundle' needs --out DIR");
}

TEST(Cli, StarterCheck) {
  auto r = Parse({"starter", "03_tiled_matmul", "--check"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->kind, CliCommand::Kind::kStarter);
  EXPECT_TRUE(r->starter.check_only);
}

}  // namespace
}  // namespace labkit
