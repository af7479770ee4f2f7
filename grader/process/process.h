// Running another program under limits: the one place labgrade starts processes. Everything the
// student wrote runs through here (compilers included, which a template bomb can keep busy).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace labkit {

// How a command uses the GPU: timed runs must have it to themselves, other runs may share it.
// kTurns: the kit's replay program, which holds no student host code and asks for a shared or an
// exclusive turn itself, only while it uses the GPU (gpu_turns.h, gpu_turn_server.h).
enum class GpuUse { kNone, kShared, kExclusive, kTurns };

struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to (or overriding) labgrade's environment
  std::string cwd;                         // empty: labgrade's own
  double timeout_seconds = 60;
  std::size_t output_limit = 1 << 20;  // bytes of stdout+stderr kept; the rest is counted, dropped
  long long file_size_limit = 1LL << 30;
  long long cpu_seconds_limit = 0;  // 0: wall-clock limit only
  GpuUse gpu = GpuUse::kNone;
  long long open_files_limit = 0;  // RLIMIT_NOFILE; 0: inherited
  long long process_limit = 0;     // RLIMIT_NPROC (counts all the user's processes); 0: inherited
  // cgroup.procs files the child moves itself into before exec (sandbox.cpp); if one cannot be
  // written the child exits with status 125 rather than run unlimited.
  std::vector<std::string> cgroup_procs;
  // Bytes the process and its descendants may hold resident, polled every 100 ms from /proc; above
  // it all of them are killed (the sandbox's memory limit where no cgroup can be had). 0: none.
  long long resident_memory_limit = 0;
  // Leading argv entries that are a wrapper (the sandbox's), not the command itself.
  std::size_t wrapper_length = 0;
  // Non-zero: the user id the command runs under, which nothing else uses (the sandbox's, as
  // root without bubblewrap). When the command ends or times out, every process of that id is
  // killed, including those that left its process group and session.
  uid_t own_user = 0;
  // A folder of lock files (made by labgrade) that the command takes turns by with its other
  // instances, such as the GPU's counters: the sandbox shows it to the command, read-only (a lock
  // needs no more), and to no other command. Empty: none.
  std::string lock_dir;
  // Descriptors of labgrade's that the command gets as its descriptors 3, 4, ... in this order
  // (kMaxPassedDescriptors at most; a GPU turn's socket, gpu_turns.h). Every other descriptor
  // labgrade holds is closed when the command starts.
  std::vector<int> passed_descriptors;
};

inline constexpr std::size_t kMaxPassedDescriptors = 4;

struct ProcessResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;    // valid when the process exited normally
  int signal = 0;        // the signal that ended it, if any
  std::string output;    // stdout and stderr interleaved, cut at the output limit
  std::size_t output_dropped = 0;
  double seconds = 0;
  std::string start_error;       // why it could not be started
  bool memory_exceeded = false;  // killed for holding more than resident_memory_limit
  // Set by the sandbox when the program went over its memory limit and was stopped: by whom, and
  // the limit. Messages are made from these, never from the output, which the program writes too.
  enum class MemoryStop { kNone, kKernel, kLabgrade };
  MemoryStop memory_stop = MemoryStop::kNone;
  long long memory_limit_bytes = 0;

  bool Succeeded() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  // "exit status 3", "killed by signal 11 (Segmentation fault)", "timed out after 60 s"...
  std::string Describe() const;
};

// A seam for tests (ninja's CommandRunner): code that runs processes takes a runner.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult Run(const Command& command) = 0;
};

// Runs for real: its own process group, killed whole on timeout.
class SystemProcessRunner : public ProcessRunner {
 public:
  ProcessResult Run(const Command& command) override;
};

}  // namespace labkit
