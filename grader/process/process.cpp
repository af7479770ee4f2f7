#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "command_trace.h"
#include "process_memory.h"
#include "user_processes.h"

extern char** environ;

namespace labkit {
namespace {

using Clock = std::chrono::steady_clock;

// How often resident_memory_limit is checked: a program touching memory at a few GiB/s overshoots
// the limit by less than a GiB before it is caught.
constexpr long long kMemoryPollMs = 100;

void set_limit(int resource, long long value) {
  if (value <= 0) return;
  rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  setrlimit(resource, &limit);
}

// In the child, between fork and exec: only async-signal-safe calls from here on.
[[noreturn]] void exec_child(const Command& command, int out_fd, char** argv, char** envp) {
  setpgid(0, 0);  // its own group, so a timeout kills everything it spawned too
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  // Each passed descriptor is first copied above every target, so that putting one in place
  // cannot close another that still waits to be moved; the copies close on exec.
  const std::size_t passed = command.passed_descriptors.size();
  if (passed > kMaxPassedDescriptors) _exit(126);
  int moved[kMaxPassedDescriptors];
  for (std::size_t i = 0; i < passed; ++i) {
    moved[i] = fcntl(command.passed_descriptors[i], F_DUPFD_CLOEXEC,
                     3 + static_cast<int>(kMaxPassedDescriptors));
    if (moved[i] < 0) _exit(126);
  }
  for (std::size_t i = 0; i < passed; ++i)
    if (dup2(moved[i], 3 + static_cast<int>(i)) < 0) _exit(126);
  // Every other descriptor closes: labgrade's own files are not all close-on-exec (a stream
  // another job's thread has open at this fork, say), and none of them is the command's to write.
  const unsigned first_closed = 3 + static_cast<unsigned>(passed);
  if (syscall(SYS_close_range, first_closed, ~0U, 0) != 0)
    for (int fd = static_cast<int>(first_closed); fd < 65536; ++fd) close(fd);
  if (!command.cwd.empty() && chdir(command.cwd.c_str()) != 0) _exit(127);
  set_limit(RLIMIT_FSIZE, command.file_size_limit);
  set_limit(RLIMIT_CPU, command.cpu_seconds_limit);
  set_limit(RLIMIT_CORE, 0);
  set_limit(RLIMIT_NOFILE, command.open_files_limit);
  set_limit(RLIMIT_NPROC, command.process_limit);
  for (const std::string& procs : command.cgroup_procs) {
    const int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {  // "0": the writing process itself
      const char msg[] = "labgrade: cannot enter the sandbox's cgroup\n";
      (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
      _exit(125);
    }
    close(fd);
  }
  execvpe(argv[0], argv, envp);
  const char msg[] = "labgrade: cannot start program\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
  _exit(127);
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (extra.count(key) == 0) env.push_back(entry);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ProcessResult::Describe() const {
  if (!started) return "could not be started: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s";
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

namespace {
// One line of LABKIT_TRACE_COMMANDS (command_trace.h) per command: CPU time far below wall-clock
// time means waiting, for the GPU or for a lock.
void TraceCommand(const Command& command, const ProcessResult& result, const rusage& usage,
                  double started) {
  const double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                     1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  std::string what;
  for (std::size_t i = command.wrapper_length; i < command.argv.size(); ++i)
    what += command.argv[i] + " ";
  TraceEvent(result.seconds, cpu, started, what);
}
}  // namespace

ProcessResult SystemProcessRunner::Run(const Command& command) {
  ProcessResult result;
  if (command.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.start_error = std::strerror(errno);
    return result;
  }
  std::vector<std::string> args = command.argv;
  std::vector<std::string> env = merged_environment(command.env);
  std::vector<char*> argv = c_strings(args);
  std::vector<char*> envp = c_strings(env);

  const auto start = Clock::now();
  const double started = TraceClock();
  const pid_t pid = fork();
  if (pid < 0) {
    result.start_error = std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return result;
  }
  if (pid == 0) exec_child(command, pipe_fds[1], argv.data(), envp.data());
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
  close(pipe_fds[1]);
  result.started = true;

  const auto deadline =
      start + std::chrono::milliseconds(static_cast<long long>(command.timeout_seconds * 1000));
  char buffer[65536];
  bool open_pipe = true;
  // Without a memory limit the loop wakes only for output; with one, at least every 100 ms, and
  // as often with a user of its own, to see the command end while something it started still
  // holds the output open.
  const long long wake_ms =
      command.resident_memory_limit > 0 || command.own_user != 0 ? kMemoryPollMs : 1000;
  int status = 0;
  rusage usage{};
  bool reaped = false;
  auto next_memory_check = start;
  auto check_memory = [&] {
    const auto now = Clock::now();
    if (command.resident_memory_limit <= 0 || result.memory_exceeded || now < next_memory_check)
      return;
    next_memory_check = now + std::chrono::milliseconds(kMemoryPollMs);
    const TreeMemory memory = MeasureProcessTree(pid);
    if (memory.resident_bytes <= command.resident_memory_limit) return;
    // Every process of the tree (one that moved to its own session is not in the group) and the
    // group; reading goes on until the pipe closes, so the output is kept.
    result.memory_exceeded = true;
    for (const pid_t member : memory.pids) kill(member, SIGKILL);
    kill(-pid, SIGKILL);
  };
  while (open_pipe) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    check_memory();
    if (command.own_user != 0 && !reaped && wait4(pid, &status, WNOHANG, &usage) == pid) {
      reaped = true;  // it ended: end what it left behind too, so the output closes
      KillAllOfUser(command.own_user);
    }
    pollfd pfd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), wake_ms)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
    if (got <= 0) {
      open_pipe = false;
      break;
    }
    const std::size_t room = command.output_limit - std::min(command.output_limit, result.output.size());
    const std::size_t keep = std::min<std::size_t>(room, static_cast<std::size_t>(got));
    result.output.append(buffer, keep);
    result.output_dropped += static_cast<std::size_t>(got) - keep;
  }
  // The pipe closed (or time ran out): kill the whole group so nothing it forked lives on.
  if (reaped) {
    // Waited for above.
  } else if (result.timed_out) {
    kill(-pid, SIGKILL);
    wait4(pid, &status, 0, &usage);
  } else {
    // Wait for the process itself, still bounded by the deadline (it may have closed its output
    // and kept running).
    while (wait4(pid, &status, WNOHANG, &usage) == 0) {
      check_memory();  // it may have closed its output and gone on allocating
      if (Clock::now() >= deadline) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        wait4(pid, &status, 0, &usage);
        break;
      }
      usleep(2000);
    }
  }
  if (!reaped) kill(-pid, SIGKILL);  // stragglers in its group
  KillAllOfUser(command.own_user);   // and, with a user of its own, everything else it started
  close(pipe_fds[0]);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  TraceCommand(command, result, usage, started);
  return result;
}

}  // namespace labkit
