#include "gpu_turn_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <future>

#include "gpu_turns.h"

namespace labkit {
namespace {

using namespace std::chrono_literals;

// The test plays the program, on the end the server would hand it.
char Ask(int fd, char what) {
  EXPECT_EQ(send(fd, &what, 1, MSG_NOSIGNAL), 1);
  if (what == gpu_turns::kGiveBack) return 0;
  char answer = 0;
  return recv(fd, &answer, 1, 0) == 1 ? answer : '?';
}

// Whether a shared turn at GPU 0 is had within `wait`; given back at once if so.
bool SharedTurnWithin(GpuGate& gate, std::chrono::milliseconds wait,
                      std::future<GpuGate::Hold>& pending) {
  pending = std::async(std::launch::async, [&gate] { return gate.EnterOn(0, false); });
  return pending.wait_for(wait) == std::future_status::ready;
}

TEST(GpuTurnServer, AnExclusiveTurnKeepsSharedRunsOutUntilGivenBack) {
  GpuGate gate;
  GpuTurnServer server(gate, 0, "kit_replay");
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_EQ(Ask(server.program_end(), gpu_turns::kAskExclusive), gpu_turns::kTurnGranted);
  std::future<GpuGate::Hold> shared;
  EXPECT_FALSE(SharedTurnWithin(gate, 100ms, shared)) << "a shared run went beside a timed turn";
  Ask(server.program_end(), gpu_turns::kGiveBack);
  ASSERT_EQ(shared.wait_for(2s), std::future_status::ready);
  gate.Leave(shared.get(), false);
}

// A program killed while it held the GPU alone: its end closes, and the turn goes back.
TEST(GpuTurnServer, ATurnHeldWhenTheProgramEndsIsGivenBack) {
  GpuGate gate;
  GpuTurnServer server(gate, 0, "kit_replay");
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(Ask(server.program_end(), gpu_turns::kAskExclusive), gpu_turns::kTurnGranted);
  server.Finish();
  std::future<GpuGate::Hold> shared;
  EXPECT_TRUE(SharedTurnWithin(gate, 2s, shared));
  gate.Leave(shared.get(), false);
}

// Shared turns go beside each other; a timed turn asked for waits for them (the drain).
TEST(GpuTurnServer, AnExclusiveTurnWaitsForTheSharedOnesToEnd) {
  GpuGate gate({}, 5s);
  GpuTurnServer first(gate, 0, "kit_replay"), second(gate, 0, "kit_replay");
  EXPECT_EQ(Ask(first.program_end(), gpu_turns::kAskShared), gpu_turns::kTurnGranted);
  EXPECT_EQ(Ask(second.program_end(), gpu_turns::kAskShared), gpu_turns::kTurnGranted);
  auto alone = std::async(std::launch::async,
                          [&] { return Ask(first.program_end(), gpu_turns::kAskExclusive); });
  EXPECT_EQ(alone.wait_for(100ms), std::future_status::timeout);
  Ask(second.program_end(), gpu_turns::kGiveBack);
  ASSERT_EQ(alone.wait_for(2s), std::future_status::ready);
  EXPECT_EQ(alone.get(), gpu_turns::kTurnGranted);
}

TEST(GpuTurnServer, AByteNoKitProgramWritesEndsTheConversation) {
  GpuGate gate;
  GpuTurnServer server(gate, 0, "kit_replay");
  char answer = 'x';
  const char bad = 'q';
  ASSERT_EQ(send(server.program_end(), &bad, 1, MSG_NOSIGNAL), 1);
  EXPECT_EQ(recv(server.program_end(), &answer, 1, 0), 0) << "the server's end did not close";
}

// A program that takes turns is placed on the least busy GPU no timed run has claimed, and its
// turns are taken there.
TEST(GpuGate, PlacesATurnTakingProgramOnTheLeastBusyUnclaimedGpu) {
  GpuGate gate({"GPU-a", "GPU-b", "GPU-c"});
  const GpuGate::Hold on_a = gate.EnterOn(0, false);
  const GpuGate::Hold claim_b = gate.EnterOn(1, true);
  EXPECT_EQ(gate.Place(), 2u);
  const GpuGate::Hold on_c = gate.EnterOn(2, false);
  const GpuGate::Hold also_c = gate.EnterOn(2, false);
  EXPECT_EQ(gate.Place(), 0u) << "GPU-b is claimed; GPU-a has one run, GPU-c two";
  gate.Leave(claim_b, true);
  EXPECT_EQ(gate.Place(), 1u);
  for (const GpuGate::Hold& h : {on_a, on_c, also_c}) gate.Leave(h, false);
}

// Through the runner, a real program: the socket is its descriptor 3, named in the environment,
// and the turn it takes and gives back leaves the gate as it found it.
TEST(GpuGateRunner, AProgramThatTakesTurnsGetsItsSocketAsDescriptorThree) {
  SystemProcessRunner system;
  GpuGate gate;
  GpuGateRunner runner(gate, system);
  Command command;
  command.argv = {"/bin/bash", "-c",
                  "echo \"$LABKIT_GPU_TURNS\"; printf x >&3; IFS= read -r -n1 -u3 g; "
                  "echo \"granted:$g\"; printf r >&3"};
  command.gpu = GpuUse::kTurns;
  const ProcessResult result = runner.Run(command);
  EXPECT_TRUE(result.Succeeded()) << result.Describe() << result.output;
  EXPECT_EQ(result.output, "3\ngranted:g\n");
  std::future<GpuGate::Hold> shared;
  EXPECT_TRUE(SharedTurnWithin(gate, 2s, shared));
  gate.Leave(shared.get(), false);
}

}  // namespace
}  // namespace labkit
