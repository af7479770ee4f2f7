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
  EXPECT_EQ(Parse({"check", "x", "--frobnicate"}).error(), "unknown option '--frobnicate'");
  EXPECT_EQ(Parse({"starter", "x", "--seed", "1"}).error(), "--seed does not apply to 'starter'");
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

TEST(Cli, StarterCheck) {
  auto r = Parse({"starter", "03_tiled_matmul", "--check"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->kind, CliCommand::Kind::kStarter);
  EXPECT_TRUE(r->starter.check_only);
}

}  // namespace
}  // namespace labkit
