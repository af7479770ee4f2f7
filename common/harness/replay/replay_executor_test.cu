// PlanReplay on the CPU backend: which writes to the student's variables a plan may ask for.
#include "replay_executor.h"

#include <gtest/gtest.h>

#include <vector>

namespace labkit::replay {
namespace {

// Two variables back to back, as a linker often lays out a student's __device__ arrays.
struct BackToBack {
  float first[8];
  float second[8];
};
__device__ BackToBack d_pair;

StudentImage PairImage() {
  StudentImage image;
  image.variables = {{ImageOffset(d_pair.first), sizeof d_pair.first},
                     {ImageOffset(d_pair.second), sizeof d_pair.second}};
  return image;
}

Op UploadTo(const void* variable, uint64_t offset, std::vector<float> values) {
  Op op;
  op.type = OpType::kSymbolUpload;
  op.image = ImageOffset(variable);
  op.symbol_offset = offset;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  op.data.assign(bytes, bytes + sizeof(float) * values.size());
  return op;
}

std::string Replay(const Op& op) {
  const HarnessMatrix none{};
  const StudentImage image = PairImage();  // the replay keeps a reference to it
  PlanReplay replay(image, none, none, none);
  Plan plan;
  plan.ops.push_back(op);
  const std::string refused = replay.Run(plan);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return refused;
}

TEST(PlanReplaySymbols, WritesTheVariableThatStartsRightWhereAnotherEnds) {
  EXPECT_EQ(Replay(UploadTo(d_pair.second, 0, std::vector<float>(8, 2.5f))), "");
  EXPECT_EQ(d_pair.second[7], 2.5f);
  EXPECT_EQ(Replay(UploadTo(d_pair.second, 28, {4.0f})), "");
  EXPECT_EQ(d_pair.second[7], 4.0f);
}

TEST(PlanReplaySymbols, RefusesAWritePastTheVariablesEndIntoTheNext) {
  EXPECT_NE(Replay(UploadTo(d_pair.first, 4, std::vector<float>(8, 1.0f))), "");
  EXPECT_NE(Replay(UploadTo(d_pair.second, 36, {1.0f})), "");
}

TEST(PlanReplaySymbols, RefusesAWriteThatDoesNotStartAtAVariable) {
  EXPECT_NE(Replay(UploadTo(d_pair.first + 1, 0, {1.0f})), "");
}

}  // namespace
}  // namespace labkit::replay
