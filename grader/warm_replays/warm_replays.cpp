#include "warm_replays.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "command_trace.h"
#include "socket_lines.h"
#include "untrusted_file.h"
#include "warm_replay.h"

namespace labkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long a server may take to make its context and say it is ready.
constexpr auto kStartLimit = std::chrono::seconds(120);
// How long past a request's own limit labgrade waits for the reply: the server's watchdog ends
// the process at the limit, and its end closes the socket.
constexpr auto kReplyGrace = std::chrono::seconds(15);
// The file a served request's stdout and stderr go to, in the replay's folder.
constexpr const char kOutputFile[] = "replay_output.txt";

bool IsRequestVariable(const std::string& name) {
  for (const char* own : warm_replay::kRequestEnvironment)
    if (name == own) return true;
  return false;
}

// What the request's process printed, as a process's output is kept: at most `limit` bytes.
void ReadOutput(const std::string& path, std::size_t limit, ProcessResult& result) {
  const Result<std::string> text = ReadUntrustedFile(path, limit);
  if (text.ok()) {
    result.output = *text;
    return;
  }
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec) result.output_dropped = static_cast<std::size_t>(size);
}

}  // namespace

struct WarmReplayPool::Server {
  Server(int own, int program) : own_end(own), program_end(program), lines(own) {}
  const int own_end;       // labgrade's end of the request socket
  const int program_end;   // the server's, closed once its process has ended
  SocketLineReader lines;  // the server's replies, read from own_end
  std::thread thread;    // runs the server's command to its end
  std::atomic<bool> ended{false};
  ProcessResult end;
  bool busy = false;
  bool retired = false;
};

WarmReplayPool::WarmReplayPool(ProcessRunner& runner, Command server, int max_servers,
                               std::string program_name)
    : runner_(runner),
      server_(std::move(server)),
      max_servers_(max_servers),
      program_name_(std::move(program_name)) {}

WarmReplayPool::~WarmReplayPool() {
  for (const auto& s : servers_) shutdown(s->own_end, SHUT_RDWR);
  for (const auto& s : servers_) {
    if (s->thread.joinable()) s->thread.join();
    close(s->own_end);
  }
}

bool WarmReplayPool::Servable(const Command& command) const {
  if (command.gpu != GpuUse::kTurns || command.wrapper_length != 0 || command.argv.size() != 4 ||
      command.argv[1] != "--replay" || fs::path(command.argv[0]).filename() != program_name_ ||
      !command.passed_descriptors.empty() || !command.lock_dir.empty() || command.cwd.empty())
    return false;
  for (const auto& [name, value] : command.env) {
    const auto own = server_.env.find(name);
    if (!IsRequestVariable(name) && (own == server_.env.end() || own->second != value))
      return false;
  }
  return true;
}

std::unique_ptr<WarmReplayPool::Server> WarmReplayPool::Start() {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return nullptr;
  auto server = std::make_unique<Server>(ends[0], ends[1]);
  Command command = server_;
  command.passed_descriptors.push_back(server->program_end);
  Server* s = server.get();
  s->thread = std::thread([this, s, command] {
    s->end = runner_.Run(command);
    close(s->program_end);
    s->ended = true;
    shutdown(s->own_end, SHUT_RDWR);  // wakes a request waiting for its reply
  });
  const std::optional<std::string> line = s->lines.Next(Clock::now() + kStartLimit);
  const json ready = line ? json::parse(*line, nullptr, false) : json();
  const bool said_ready = ready.is_object() && ready.value("ready", false) == true;
  const auto pageable = ready.is_object() ? ready.find("pageable_memory_access") : ready.end();
  if (!said_ready || pageable == ready.end() || !pageable->is_number_integer() || *pageable != 0) {
    s->retired = true;
    shutdown(s->own_end, SHUT_RDWR);
    if (said_ready) {
      std::lock_guard<std::mutex> lock(mutex_);
      off_ = true;  // kernels could reach host memory: no replay shares a process
    }
  }
  return server;
}

WarmReplayPool::Server* WarmReplayPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (off_) return nullptr;
    for (const auto& s : servers_)
      if (!s->busy && !s->retired && !s->ended) {
        s->busy = true;
        return s.get();
      }
    int live = starting_;
    for (const auto& s : servers_) live += !s->retired && !s->ended;
    if (live >= max_servers_) return nullptr;
    ++starting_;  // a slot taken while the new server starts, outside the lock
  }
  std::unique_ptr<Server> fresh = Start();
  std::lock_guard<std::mutex> lock(mutex_);
  --starting_;
  if (!fresh) return nullptr;
  ++counts_.started;
  Server* s = fresh.get();
  servers_.push_back(std::move(fresh));
  if (s->retired) return nullptr;
  s->busy = true;
  return s;
}

void WarmReplayPool::Release(Server* server, bool retire) {
  std::lock_guard<std::mutex> lock(mutex_);
  server->busy = false;
  if ((retire || server->ended) && !server->retired) {
    server->retired = true;
    shutdown(server->own_end, SHUT_RDWR);  // the server reads the end of its requests and ends
  }
}

std::optional<ProcessResult> WarmReplayPool::Serve(const Command& command) {
  if (!Servable(command)) return std::nullopt;
  Server* s = Acquire();
  if (s == nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.declined;
    return std::nullopt;
  }
  const std::string output = (fs::path(command.cwd) / kOutputFile).string();
  std::error_code ec;
  fs::remove(output, ec);
  json env = json::object();
  for (const auto& [name, value] : command.env)
    if (IsRequestVariable(name)) env[name] = value;
  const double began = TraceClock();
  const auto start = Clock::now();
  const bool sent = SendLine(s->own_end, json({{"request", command.argv[2]},
                                               {"response", command.argv[3]},
                                               {"output", output},
                                               {"seconds", command.timeout_seconds},
                                               {"env", env}})
                                             .dump());
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(command.timeout_seconds));
  const std::optional<std::string> line =
      sent ? s->lines.Next(start + limit + kReplyGrace) : std::nullopt;
  const json reply = line ? json::parse(*line, nullptr, false) : json();
  const auto exit = reply.is_object() ? reply.find("exit") : reply.end();
  if (exit == reply.end() || !exit->is_number_integer()) {
    Release(s, true);
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.failed;
    return std::nullopt;
  }
  ProcessResult result;
  result.started = true;
  result.exit_code = exit->get<int>();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ReadOutput(output, command.output_limit, result);
  const auto reusable = reply.find("reusable");
  Release(s, reusable == reply.end() || !reusable->is_boolean() || !reusable->get<bool>());
  std::string what = "warm replay: ";  // then the command line, as a process's trace line has it
  for (const std::string& word : command.argv) what += word + " ";
  TraceEvent(result.seconds, 0, began, what);
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.served;
  return result;
}

WarmReplayPool::Counts WarmReplayPool::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

ProcessResult WarmReplayRunner::Run(const Command& command) {
  if (pool_ != nullptr)
    if (std::optional<ProcessResult> served = pool_->Serve(command)) return *std::move(served);
  return inner_.Run(command);
}

}  // namespace labkit
