// Warm replay processes, labgrade's side (warm_replays.h), against a stand-in server that runs the
// harness's own serving loop (stand_in_replay_server.cpp): what is served, what falls back to a
// process of its own, and that no server failure becomes a result.
#include "warm_replays.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "gpu_gate.h"
#include "warm_replay.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;

class WarmReplaysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/warm_replays_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The server's command as a batch makes it: turns through the gate (descriptor 3), so that the
  // request socket lands where the server looks for it.
  Command ServerCommand(const std::string& pageable = "0") const {
    Command server;
    server.argv = {LABKIT_STAND_IN_SERVER, warm_replay::kServeOption};
    server.gpu = GpuUse::kTurns;
    server.timeout_seconds = 120;
    server.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}, {"STAND_IN_PAGEABLE", pageable}};
    return server;
  }

  // A replay's command line, as the harness's client writes it, in a folder of its own whose
  // request file says what the stand-in does.
  Command Replay(const std::string& name, const std::string& word, double seconds = 30) const {
    const std::string folder = dir_ + "/" + name + "/";
    fs::create_directories(folder);
    std::ofstream(folder + "request.json") << word << "\n";
    Command c;
    c.argv = {dir_ + "/kit_replay", "--replay", folder + "request.json", folder + "response.jsonl"};
    c.cwd = folder;
    c.gpu = GpuUse::kTurns;
    c.timeout_seconds = seconds;
    c.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
             {"LABKIT_DEVICE_MEMORY_LIMIT", "1234"},
             {"LABKIT_EMU_REPORT", folder + "emu_report.jsonl"}};
    return c;
  }

  static std::string Response(const Command& replay) {
    std::ifstream in(replay.argv[3]);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string dir_;
  GpuGate gate_;
  SystemProcessRunner system_;
  GpuGateRunner on_a_gpu_{gate_, system_};
};

// Stands for a process of its own: counts what reaches it.
class CountingRunner : public ProcessRunner {
 public:
  ProcessResult Run(const Command&) override {
    ++runs;
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
  }
  int runs = 0;
};

TEST_F(WarmReplaysTest, OneProcessServesReplayAfterReplayWithEachRequestsOwnSettings) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand(), 2, "kit_replay");
  const Command first = Replay("a", "ok"), second = Replay("b", "exit3");
  Command unlimited = Replay("c", "ok");
  unlimited.env.erase("LABKIT_DEVICE_MEMORY_LIMIT");

  const auto a = pool.Serve(first);
  const auto b = pool.Serve(second);
  const auto c = pool.Serve(unlimited);
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(a->Succeeded());
  EXPECT_EQ(b->exit_code, 3);
  EXPECT_EQ(a->output, "replay output\n");  // the request's own output, no other's
  EXPECT_EQ(b->output, "replay output\n");
  std::string pid_a, pid_c, limit_a, limit_c;
  std::istringstream(Response(first)) >> pid_a >> limit_a;
  std::istringstream(Response(unlimited)) >> pid_c >> limit_c;
  EXPECT_EQ(pid_a, pid_c);  // one warm process
  EXPECT_EQ(limit_a, "1234");
  EXPECT_EQ(limit_c, "unset");  // not left over from the request before
  EXPECT_EQ(pool.counts().served, 3);
  EXPECT_EQ(pool.counts().started, 1);
}

TEST_F(WarmReplaysTest, OnlyTheKitsPlainReplaysAreServed) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand(), 2, "kit_replay");
  EXPECT_TRUE(pool.Servable(Replay("ok", "ok")));
  Command student_program = Replay("p", "ok");
  student_program.argv[0] = dir_ + "/harness";  // a program with the student's host code in it
  Command record = Replay("r", "ok");
  record.argv[1] = "--record";
  Command whole_turn = Replay("t", "ok");
  whole_turn.gpu = GpuUse::kShared;  // a counting or sanitizer run holds its turn for its life
  Command counted = Replay("n", "ok");
  counted.lock_dir = dir_;
  Command other_settings = Replay("e", "ok");
  other_settings.env["LABKIT_EMU_ORDER"] = "reverse";
  Command sanitized = Replay("s", "ok");
  sanitized.argv.insert(sanitized.argv.begin(), "compute-sanitizer");
  for (const Command& c :
       {student_program, record, whole_turn, counted, other_settings, sanitized}) {
    EXPECT_FALSE(pool.Servable(c)) << c.argv[0] << " " << c.argv[1];
    EXPECT_FALSE(pool.Serve(c).has_value());
  }
  EXPECT_EQ(pool.counts().started, 0);
}

TEST_F(WarmReplaysTest, AStickyErrorEndsTheServerAfterItsReplyAndTheNextRequestGetsAFreshOne) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand(), 1, "kit_replay");
  const Command sticky = Replay("a", "sticky"), after = Replay("b", "ok");
  const auto first = pool.Serve(sticky);
  ASSERT_TRUE(first.has_value());  // its own reply stands: the case lines say what failed
  EXPECT_TRUE(first->Succeeded());
  ASSERT_TRUE(pool.Serve(after).has_value());
  std::string pid_a, pid_b;
  std::istringstream(Response(sticky)) >> pid_a;
  std::istringstream(Response(after)) >> pid_b;
  EXPECT_NE(pid_a, pid_b);
  EXPECT_EQ(pool.counts().started, 2);
}

TEST_F(WarmReplaysTest, AHangOrACrashIsNoResultAndTheReplayRunsInAProcessOfItsOwn) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand(), 1, "kit_replay");
  CountingRunner own_process;
  WarmReplayRunner runner(&pool, own_process);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(runner.Run(Replay("hang", "hang", 1)).Succeeded());  // the stand-in's "own" run
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 10) << "the server's watchdog ends a request at its limit";
  EXPECT_TRUE(runner.Run(Replay("crash", "crash")).Succeeded());
  EXPECT_EQ(own_process.runs, 2);
  EXPECT_EQ(pool.counts().failed, 2);
  // The pool starts another server for what comes next.
  EXPECT_TRUE(runner.Run(Replay("next", "ok")).Succeeded());
  EXPECT_EQ(own_process.runs, 2);
  EXPECT_EQ(pool.counts().served, 1);
}

TEST_F(WarmReplaysTest, KernelsThatCouldReachHostMemoryTurnThePoolOff) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand("1"), 4, "kit_replay");
  EXPECT_FALSE(pool.Serve(Replay("a", "ok")).has_value());
  EXPECT_FALSE(pool.Serve(Replay("b", "ok")).has_value());
  EXPECT_EQ(pool.counts().started, 1);  // not tried again
  EXPECT_EQ(pool.counts().declined, 2);
}

TEST_F(WarmReplaysTest, WithEveryServerBusyAReplayIsDeclinedAtOnce) {
  WarmReplayPool pool(on_a_gpu_, ServerCommand(), 1, "kit_replay");
  ASSERT_TRUE(pool.Serve(Replay("warm", "ok")).has_value());  // the one server, started
  auto busy = std::async(std::launch::async, [&] { return pool.Serve(Replay("h", "hang", 2)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(pool.Serve(Replay("b", "ok")).has_value());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1);
  EXPECT_FALSE(busy.get().has_value());
  EXPECT_EQ(pool.counts().declined, 1);
}

}  // namespace
}  // namespace labkit
