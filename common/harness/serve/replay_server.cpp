#include "replay_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "harness_protocol.h"
#include "socket_lines.h"
#include "warm_replay.h"

namespace labkit {
namespace {

using nlohmann::json;

bool WriteLine(int fd, const json& j) { return SendLine(fd, j.dump()); }

// Ends the process if the request is still running at its deadline: a kernel that never returns
// holds the thread that serves, and only the process's end frees the GPU from it.
class Watchdog {
 public:
  explicit Watchdog(double seconds)
      : thread_([this, limit = std::chrono::duration<double>(seconds)] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!done_changed_.wait_for(lock, limit, [this] { return done_; }))
            _exit(warm_replay::kRequestOverranExitCode);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_changed_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;  // last: started once the members above exist
};

// The process's stdout and stderr in `path` for a scope (a kernel's printf included, which the
// runtime writes at the request's final synchronisation).
class OutputTo {
 public:
  explicit OutputTo(const std::string& path) {
    std::fflush(nullptr);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return;
    saved_out_ = dup(STDOUT_FILENO);
    saved_err_ = dup(STDERR_FILENO);
    ok_ = saved_out_ >= 0 && saved_err_ >= 0 && dup2(fd, STDOUT_FILENO) >= 0 &&
          dup2(fd, STDERR_FILENO) >= 0;
    close(fd);
  }
  ~OutputTo() {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    if (saved_out_ >= 0) dup2(saved_out_, STDOUT_FILENO), close(saved_out_);
    if (saved_err_ >= 0) dup2(saved_err_, STDERR_FILENO), close(saved_err_);
  }
  bool ok() const { return ok_; }

 private:
  int saved_out_ = -1, saved_err_ = -1;
  bool ok_ = false;
};

void SetRequestEnvironment(const json& env) {
  for (const char* name : warm_replay::kRequestEnvironment) {
    const auto it = env.is_object() ? env.find(name) : env.end();
    if (it != env.end() && it->is_string())
      setenv(name, it->get<std::string>().c_str(), 1);
    else
      unsetenv(name);
  }
}

}  // namespace

int ServeReplays(int fd, const json& ready, const ServeRequest& serve) {
  if (!WriteLine(fd, ready)) return kHarnessUsageExitCode;
  SocketLineReader lines(fd);
  for (int served = 1; served <= warm_replay::kMaxRequestsPerServer; ++served) {
    const std::optional<std::string> line = lines.Next();
    if (!line) return 0;  // labgrade is done with this server
    const json request = json::parse(*line, nullptr, false);
    const auto is_text = [&](const char* field) {
      return request.contains(field) && request[field].is_string();
    };
    if (!request.is_object() || !is_text("request") || !is_text("response") || !is_text("output") ||
        !request.contains("seconds") || !request["seconds"].is_number() ||
        !(request["seconds"].get<double>() > 0))
      return kHarnessUsageExitCode;
    SetRequestEnvironment(request.value("env", json::object()));
    ServedReply reply;
    {
      OutputTo output(request.at("output").get<std::string>());
      if (!output.ok()) {
        // Not the request's doing: labgrade runs it in a process of its own.
        WriteLine(fd, {{"refused", "cannot create the request's output file"}});
        return kHarnessUsageExitCode;
      }
      Watchdog deadline(request.at("seconds").get<double>());
      reply = serve(request.at("request").get<std::string>(),
                    request.at("response").get<std::string>());
    }
    const bool last = !reply.reusable || served == warm_replay::kMaxRequestsPerServer;
    if (!WriteLine(fd, {{"exit", reply.exit_code}, {"reusable", !last}})) return 0;
    if (last) return 0;
  }
  return 0;
}

}  // namespace labkit
