// The record side's handling of a host function's own arrays (replay_recorder.h, HostArray): a
// copy from or into one of them is kept as a reference to it, so that the replay moves its own
// arrays; other host bytes stay literal, and nothing of a capture's arrays outlives it.
#include "replay_recorder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace labkit::replay {
namespace {

// "Device" memory for the recorder, which only compares addresses.
struct Fixture {
  std::vector<char> device = std::vector<char>(64);
  std::vector<float> x = std::vector<float>(4, 1.0f), z = std::vector<float>(4, 0.0f);
  std::vector<float> other = std::vector<float>(4, 2.0f);
  Fixture() { NoteAlloc(device.data(), device.size()); }
  ~Fixture() { NoteFree(device.data()); }
  std::vector<HostArray> Arrays() const { return {{x.data(), 16}, {z.data(), 16}}; }
};

const HarnessMatrix kNone{};

// The plan's operations but the allocation of the fixture's buffer, which a plan makes before its
// first use of a buffer made outside it.
std::vector<Op> Copies(const Plan& plan) {
  std::vector<Op> ops;
  for (const Op& op : plan.ops)
    if (op.type != OpType::kAlloc) ops.push_back(op);
  return ops;
}

TEST(ReplayRecorder, CopiesFromAndIntoTheGivenArraysAreReferences) {
  Fixture f;
  Plan plan;
  {
    PlanCapture capture(kNone, kNone, kNone, f.Arrays());
    NoteCopy(f.device.data() + 16, true, f.x.data() + 1, false, 8);  // x[1..3) to the device
    NoteCopy(f.z.data(), false, f.device.data(), true, 16);          // back into z
    plan.ops = Copies(capture.take());
  }
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].type, OpType::kHostUpload);
  EXPECT_EQ(plan.ops[0].src.region, 0);
  EXPECT_EQ(plan.ops[0].src.offset, 4);
  EXPECT_EQ(plan.ops[0].dst.offset, 16);
  EXPECT_EQ(plan.ops[0].bytes, 8u);
  EXPECT_TRUE(plan.ops[0].data.empty());  // the record's values are not in the plan
  EXPECT_EQ(plan.ops[1].type, OpType::kHostDownload);
  EXPECT_EQ(plan.ops[1].dst.region, 1);
  EXPECT_EQ(plan.ops[1].dst.offset, 0);
  EXPECT_EQ(plan.ops[1].src.offset, 0);
}

TEST(ReplayRecorder, OtherHostBytesStayLiteralAndOtherDownloadsAreDropped) {
  Fixture f;
  Plan plan;
  {
    PlanCapture capture(kNone, kNone, kNone, f.Arrays());
    NoteCopy(f.device.data(), true, f.other.data(), false, 16);  // values the host code made
    NoteCopy(f.device.data(), true, f.x.data() + 2, false, 16);  // runs past x's end
    NoteCopy(f.other.data(), false, f.device.data(), true, 16);  // to host memory of its own
    plan.ops = Copies(capture.take());
  }
  ASSERT_EQ(plan.ops.size(), 2u);
  EXPECT_EQ(plan.ops[0].type, OpType::kUpload);
  EXPECT_EQ(plan.ops[0].data.size(), 16u);
  EXPECT_EQ(plan.ops[1].type, OpType::kUpload);
}

TEST(ReplayRecorder, ArraysBelongToTheirCaptureOnly) {
  Fixture f;
  { PlanCapture capture(kNone, kNone, kNone, f.Arrays()); }
  PlanCapture later(kNone, kNone, kNone);
  NoteCopy(f.device.data(), true, f.x.data(), false, 16);
  Plan plan;
  plan.ops = Copies(later.take());
  ASSERT_EQ(plan.ops.size(), 1u);
  EXPECT_EQ(plan.ops[0].type, OpType::kUpload);
}

TEST(ReplayRecorder, HostArrayReferencesSurviveThePlanFile) {
  Fixture f;
  Plan plan;
  {
    PlanCapture capture(kNone, kNone, kNone, f.Arrays());
    NoteCopy(f.device.data(), true, f.x.data(), false, 16);
    NoteCopy(f.z.data() + 1, false, f.device.data(), true, 12);
    plan.ops = Copies(capture.take());
  }
  Plan back;
  ASSERT_EQ(DecodePlan(EncodePlan(plan), back), "");
  ASSERT_EQ(back.ops.size(), 2u);
  EXPECT_EQ(back.ops[0].type, OpType::kHostUpload);
  EXPECT_EQ(back.ops[1].type, OpType::kHostDownload);
  EXPECT_EQ(back.ops[1].dst.region, 1);
  EXPECT_EQ(back.ops[1].dst.offset, 4);
}

// A function that threw while it was recorded: the replay must report the exception, so the plan
// carries it (bounded: the plan file comes from the student's process).
TEST(ReplayRecorder, TheExceptionAFunctionThrewSurvivesThePlanFile) {
  Plan plan;
  plan.student_exception = "your function threw an exception (vector::_M_range_check)";
  Plan back;
  ASSERT_EQ(DecodePlan(EncodePlan(plan), back), "");
  EXPECT_EQ(back.student_exception, plan.student_exception);
  EXPECT_TRUE(back.ops.empty());

  plan.student_exception = std::string(5000, 'x');
  ASSERT_EQ(DecodePlan(EncodePlan(plan), back), "");
  EXPECT_EQ(back.student_exception.size(), 1000u);

  ASSERT_EQ(DecodePlan(EncodePlan(Plan{}), back), "");
  EXPECT_EQ(back.student_exception, "");
}

// A host function's own calls (lab 02), which its replay checks without calling it.
TEST(ReplayRecorder, AHostFunctionsCallCountsSurviveThePlanFile) {
  Plan plan;
  plan.call = CallCounts{2, 8000, 4000, 17, 1};
  Plan back;
  ASSERT_EQ(DecodePlan(EncodePlan(plan), back), "");
  ASSERT_TRUE(back.call.has_value());
  EXPECT_EQ(back.call->returned, 2);
  EXPECT_EQ(back.call->bytes_to_device, 8000u);
  EXPECT_EQ(back.call->bytes_to_host, 4000u);
  EXPECT_EQ(back.call->copies_2d, 17);
  EXPECT_EQ(back.call->launches, 1);
  ASSERT_EQ(DecodePlan(EncodePlan(Plan{}), back), "");
  EXPECT_FALSE(back.call.has_value());
}

// A plan the replay would refuse (replay_plan.h's limits) ends where it reaches them, with a note
// the replay reports; what the function does after that is not kept (memory, and a plan file of a
// gigabyte per case on the grading machine's disk).
Plan RecordedWith(const std::function<void(char* device)>& work) {
  std::vector<char> device(1 << 20);
  NoteAlloc(device.data(), device.size());
  Plan plan;
  {
    PlanCapture capture(kNone, kNone, kNone);
    work(device.data());
    plan = capture.take();
  }
  NoteFree(device.data());
  return plan;
}

void ExpectCutShort(const Plan& plan) {
  ASSERT_FALSE(plan.ops.empty());
  EXPECT_EQ(plan.ops.back().type, OpType::kUnsupported);
  EXPECT_NE(plan.ops.back().note.find("more work than the grader records"),
            std::string::npos);
  EXPECT_LE(plan.ops.size(), kMaxOps);
  std::size_t data = 0;
  for (const Op& op : plan.ops) data += op.data.size();
  EXPECT_LE(data, kMaxRecordedBytes);
}

// The host bytes one process keeps are counted for the whole process: these two run in a child
// process of their own (a record process's budget is spent once), which exits 0 when all is well.
void InAProcessOfItsOwn(const std::function<void()>& checks) {
  EXPECT_EXIT(
      {
        checks();
        std::exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ReplayRecorder, UploadsOfItsOwnBytesStopAtTheRecordLimit) {
  InAProcessOfItsOwn([] {
    const std::vector<char> own(1 << 20, 7);
    const Plan plan = RecordedWith([&](char* device) {
      for (int i = 0; i < 200; ++i) NoteCopy(device, true, own.data(), false, own.size());
    });
    ExpectCutShort(plan);
    EXPECT_GT(plan.ops.size(), 100u);                 // the uploads that fit are kept
    EXPECT_EQ(plan.ops[1].data.size(), own.size());  // after the buffer's allocation
    // The next call's plan holds no more of them.
    ExpectCutShort(RecordedWith(
        [&](char* device) { NoteCopy(device, true, own.data(), false, own.size()); }));
  });
}

// Not even read: the copy says it is larger than the bytes behind it, which a read would pass.
TEST(ReplayRecorder, OneCopyLargerThanTheLimitIsNotHeld) {
  InAProcessOfItsOwn([] {
    const char own[16] = {};
    const Plan plan = RecordedWith(
        [&](char* device) { NoteCopy(device, true, own, false, kMaxRecordedBytes + 1); });
    ExpectCutShort(plan);
    EXPECT_EQ(plan.ops.size(), 2u);  // the allocation, then the note
  });
}

TEST(ReplayRecorder, CallsStopAtThePlanLimitAndTheNextCaptureStartsAfresh) {
  const Plan many = RecordedWith([](char* device) {
    for (std::size_t i = 0; i < kMaxOps + 10; ++i) NoteMemset(device, 0, 4);
  });
  ExpectCutShort(many);
  Plan back;  // and the replay reads it
  EXPECT_EQ(DecodePlan(EncodePlan(many), back), "");
  EXPECT_EQ(back.ops.size(), many.ops.size());
  const Plan next = RecordedWith([](char* device) { NoteMemset(device, 0, 4); });
  ASSERT_EQ(next.ops.size(), 2u);
  EXPECT_EQ(next.ops[1].type, OpType::kMemset);
}

}  // namespace
}  // namespace labkit::replay
