#include "gpu_gate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>
#include <vector>

namespace labkit {
namespace {

using namespace std::chrono_literals;

// Records, per GPU named in CUDA_VISIBLE_DEVICES, how many shared and exclusive commands are
// inside Run at once. A command whose argv[0] is "meet" waits (up to 2 s) until `meet_count`
// such commands are inside together, which shows that they can overlap; "sleep:N" takes N ms.
class RecordingRunner : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override {
    const auto visible = command.env.find("CUDA_VISIBLE_DEVICES");
    const std::string gpu = visible == command.env.end() ? "(unset)" : visible->second;
    const bool exclusive = command.gpu == GpuUse::kExclusive;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Inside& in = inside_[gpu];
      (exclusive ? in.exclusive : in.shared)++;
      if (in.exclusive > 1 || (in.exclusive == 1 && in.shared > 0)) ++violations_;
      gpus_seen_.push_back(gpu);
    }
    if (command.argv[0] == "meet") {
      std::unique_lock<std::mutex> lock(mutex_);
      ++met_;
      changed_.notify_all();
      met_all_ = changed_.wait_for(lock, 2s, [&] { return met_ >= meet_count; }) || met_all_;
    } else if (command.argv[0].rfind("sleep:", 0) == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(command.argv[0].substr(6))));
    } else {
      std::this_thread::sleep_for(1ms);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Inside& in = inside_[gpu];
    (exclusive ? in.exclusive : in.shared)--;
    ProcessResult result;
    result.started = true;
    result.exit_code = 0;
    return result;
  }

  int meet_count = 0;
  int violations_ = 0;
  bool met_all_ = false;
  std::vector<std::string> gpus_seen_;

 private:
  struct Inside {
    int shared = 0;
    int exclusive = 0;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Inside> inside_;
  int met_ = 0;
};

Command MakeCommand(const std::string& name, GpuUse use) {
  Command command;
  command.argv = {name};
  command.gpu = use;
  return command;
}

// Many threads, each running a mix of shared and exclusive commands through one gate.
void RunMix(GpuGateRunner& gate, int threads, int per_thread) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i)
        gate.Run(MakeCommand("work", (i + t) % 4 == 0 ? GpuUse::kExclusive : GpuUse::kShared));
    });
  for (std::thread& thread : pool) thread.join();
}

// Also when the drain's patience runs out at every turn (1 ms), claims given back and taken again.
TEST(GpuGateRunner, ATimedRunNeverSharesItsGpu) {
  for (const std::chrono::milliseconds patience : {std::chrono::milliseconds(3000), 1ms})
    for (const std::vector<std::string>& gpus :
         {std::vector<std::string>{}, std::vector<std::string>{"GPU-a", "GPU-b", "GPU-c"}}) {
      RecordingRunner inner;
      GpuGate gpu_gate(gpus, patience);
      GpuGateRunner gate(gpu_gate, inner);
      RunMix(gate, 12, 40);
      EXPECT_EQ(inner.violations_, 0) << gpus.size() << " GPUs, patience " << patience.count();
    }
}

TEST(GpuGateRunner, WithSeveralGpusTimesAsManyRunsSideBySide) {
  RecordingRunner inner;
  inner.meet_count = 2;
  GpuGate gpus({"0", "1"});
  GpuGateRunner gate(gpus, inner);
  std::thread first([&] { gate.Run(MakeCommand("meet", GpuUse::kExclusive)); });
  std::thread second([&] { gate.Run(MakeCommand("meet", GpuUse::kExclusive)); });
  first.join();
  second.join();
  EXPECT_TRUE(inner.met_all_) << "two timed runs on two GPUs did not overlap";
  ASSERT_EQ(inner.gpus_seen_.size(), 2u);
  EXPECT_NE(inner.gpus_seen_[0], inner.gpus_seen_[1]);
  EXPECT_EQ(inner.violations_, 0);
}

TEST(GpuGateRunner, SharedRunsSpreadOverTheGpus) {
  RecordingRunner inner;
  inner.meet_count = 4;
  GpuGate gpus({"GPU-a", "GPU-b"});
  GpuGateRunner gate(gpus, inner);
  std::vector<std::thread> pool;
  for (int i = 0; i < 4; ++i)
    pool.emplace_back([&] { gate.Run(MakeCommand("meet", GpuUse::kShared)); });
  for (std::thread& thread : pool) thread.join();
  EXPECT_TRUE(inner.met_all_);
  std::map<std::string, int> per_gpu;
  for (const std::string& gpu : inner.gpus_seen_) ++per_gpu[gpu];
  EXPECT_EQ(per_gpu["GPU-a"], 2);
  EXPECT_EQ(per_gpu["GPU-b"], 2);
}

// A shared run that takes long (a sanitizer's, a hang's) does not keep every job waiting: past the
// drain's patience the timed run lets other shared runs go on beside the slow one, and runs once
// it has ended, alone on the GPU all the same.
TEST(GpuGateRunner, ASlowSharedRunDoesNotHoldUpTheOthers) {
  RecordingRunner inner;
  GpuGate one_gpu({}, 50ms);
  GpuGateRunner gate(one_gpu, inner);
  std::thread slow([&] { gate.Run(MakeCommand("sleep:900", GpuUse::kShared)); });
  std::this_thread::sleep_for(50ms);
  std::thread timed([&] { gate.Run(MakeCommand("sleep:10", GpuUse::kExclusive)); });
  std::this_thread::sleep_for(250ms);  // the timed run has waited past its patience
  const auto asked = std::chrono::steady_clock::now();
  gate.Run(MakeCommand("work", GpuUse::kShared));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 400ms)
      << "a shared run waited for the slow one to end";
  slow.join();
  timed.join();
  EXPECT_EQ(inner.violations_, 0);

  // A drain within the patience keeps timed runs first: a shared run asked for meanwhile waits.
  GpuGate patient({}, 5s);
  GpuGateRunner gate2(patient, inner);
  std::thread slow2([&] { gate2.Run(MakeCommand("sleep:300", GpuUse::kShared)); });
  std::this_thread::sleep_for(50ms);
  std::thread timed2([&] { gate2.Run(MakeCommand("sleep:10", GpuUse::kExclusive)); });
  std::this_thread::sleep_for(50ms);
  const auto asked2 = std::chrono::steady_clock::now();
  gate2.Run(MakeCommand("work", GpuUse::kShared));
  EXPECT_GE(std::chrono::steady_clock::now() - asked2, 150ms) << "went before the timed run";
  slow2.join();
  timed2.join();
  EXPECT_EQ(inner.violations_, 0);
}

TEST(GpuGateRunner, OneGpuLeavesTheEnvironmentAlone) {
  RecordingRunner inner;
  GpuGate one_gpu;
  GpuGateRunner gate(one_gpu, inner);
  gate.Run(MakeCommand("work", GpuUse::kShared));
  gate.Run(MakeCommand("work", GpuUse::kExclusive));
  EXPECT_EQ(inner.gpus_seen_, (std::vector<std::string>{"(unset)", "(unset)"}));
}

TEST(GpuGateRunner, CommandsWithoutTheGpuPassStraightThrough) {
  RecordingRunner inner;
  GpuGate gpus({"0", "1"});
  GpuGateRunner gate(gpus, inner);
  gate.Run(MakeCommand("work", GpuUse::kNone));
  EXPECT_EQ(inner.gpus_seen_, (std::vector<std::string>{"(unset)"}));
}

}  // namespace
}  // namespace labkit
