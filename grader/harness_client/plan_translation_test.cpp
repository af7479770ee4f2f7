#include "plan_translation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace labkit {
namespace {

// The recording build: a kernel at 100 (40 bytes), a runner at 200, a 16-byte variable at 1000.
// The other build holds the same names elsewhere; its kernel's code is longer.
constexpr const char* kFrom =
    R"({"_Z6kernelPf": [100, 40, "code"], "_ZN3emu6detail7ClosureE3run": [200, 8, "code"],
        "tile_side": [1000, 16, "data"]})";
constexpr const char* kTo =
    R"({"_Z6kernelPf": [5100, 48, "code"], "_ZN3emu6detail7ClosureE3run": [5200, 8, "code"],
        "tile_side": [6000, 16, "data"]})";

PlanTranslation Translation(const char* from = kFrom, const char* to = kTo) {
  const std::optional<PlanTranslation> t = PlanTranslation::FromJson(from, to);
  EXPECT_TRUE(t.has_value());
  return t.value_or(*PlanTranslation::FromJson("{}", "{}"));
}

TEST(PlanTranslation, MovesEachNameToItsPlaceInTheOtherBuild) {
  const PlanTranslation t = Translation();
  EXPECT_EQ(t.Offset(100), 5100);
  EXPECT_EQ(t.Offset(200), 5200);
  EXPECT_EQ(t.Offset(1000), 6000);
  EXPECT_EQ(t.Offset(1008), 6008);  // into a variable: its layout is the same in both builds
}

TEST(PlanTranslation, RefusesWhatHasNoCounterpart) {
  const PlanTranslation t = Translation();
  EXPECT_FALSE(t.Offset(99));    // before anything of the student's
  EXPECT_FALSE(t.Offset(140));   // just past the kernel
  EXPECT_FALSE(t.Offset(104));   // inside a function: the builds' code differs there
  EXPECT_FALSE(t.Offset(5000));  // nothing there
  // A variable of another size, a name the other build lacks, code become data.
  EXPECT_FALSE(Translation(kFrom, R"({"tile_side": [6000, 32, "data"]})").Offset(1000));
  EXPECT_FALSE(Translation(kFrom, R"({"other": [6000, 16, "data"]})").Offset(1000));
  EXPECT_FALSE(Translation(kFrom, R"({"_Z6kernelPf": [5100, 40, "data"]})").Offset(100));
}

TEST(PlanTranslation, RefusesSymbolListsItCannotRead) {
  EXPECT_FALSE(PlanTranslation::FromJson("not json", kTo));
  EXPECT_FALSE(PlanTranslation::FromJson(kFrom, R"({"k": [1, 2]})"));
  EXPECT_FALSE(PlanTranslation::FromJson(R"(["k"])", kTo));
  EXPECT_FALSE(PlanTranslation::Between("/nonexistent/harness", "/nonexistent/other"));
}

replay::Op Launch(int64_t kernel, int64_t runner, std::vector<replay::Relocation> relocations) {
  replay::Op op;
  op.type = replay::OpType::kLaunch;
  op.image = kernel;
  op.runner = runner;
  op.relocations = std::move(relocations);
  return op;
}

TEST(PlanTranslation, TranslatesEveryImageReferenceOfAPlanAndNoDeviceOne) {
  replay::Plan plan;
  replay::Op upload;
  upload.type = replay::OpType::kSymbolUpload;
  upload.image = 1000;
  plan.ops.push_back(upload);
  replay::Relocation device_pointer{8, {replay::kRegionA, 64}, -1};
  replay::Relocation function_pointer{16, {}, 100};
  plan.ops.push_back(Launch(100, 200, {device_pointer, function_pointer}));
  ASSERT_TRUE(Translation().Translate(plan));
  EXPECT_EQ(plan.ops[0].image, 6000);
  EXPECT_EQ(plan.ops[1].image, 5100);
  EXPECT_EQ(plan.ops[1].runner, 5200);
  EXPECT_EQ(plan.ops[1].relocations[0].device.region, replay::kRegionA);
  EXPECT_EQ(plan.ops[1].relocations[0].image, -1);
  EXPECT_EQ(plan.ops[1].relocations[1].image, 5100);

  replay::Plan outside;
  outside.ops.push_back(Launch(100, -1, {{16, {}, 4}}));  // a pointer into the kit's code
  EXPECT_FALSE(Translation().Translate(outside));
}

TEST(PlanTranslation, TranslatesAPlanFileAndRefusesOthers) {
  namespace fs = std::filesystem;
  const std::string dir =
      fs::temp_directory_path() / ("labkit_plan_translation_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  replay::Plan plan;
  plan.ops.push_back(Launch(100, -1, {}));
  plan.student_exception = "kept as it was";
  ASSERT_TRUE(replay::WritePlanFile(dir + "/c0.plan", plan));
  ASSERT_TRUE(TranslatePlanFile(Translation(), dir + "/c0.plan", dir + "/out.plan"));
  replay::Plan back;
  ASSERT_EQ(replay::ReadPlanFile(dir + "/out.plan", back), "");
  EXPECT_EQ(back.ops.at(0).image, 5100);
  EXPECT_EQ(back.student_exception, "kept as it was");

  EXPECT_FALSE(TranslatePlanFile(Translation(), dir + "/c0.plan", dir + "/big.plan", 4));
  fs::create_symlink(dir + "/c0.plan", dir + "/link.plan");
  EXPECT_FALSE(TranslatePlanFile(Translation(), dir + "/link.plan", dir + "/l.plan"));
  EXPECT_FALSE(TranslatePlanFile(Translation(), dir + "/missing.plan", dir + "/m.plan"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace labkit
