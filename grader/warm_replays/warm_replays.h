// labgrade's side of warm replay processes (common/harness/protocol/warm_replay.h, issue 16): a
// batch keeps a few of the kit's replay programs running and sends each submission's replays to
// one that is free, instead of starting a process (and a CUDA context, about 1.2 s among sixteen
// jobs on an H100) per replay. A server holds no student host code; each request loads its device
// code and unloads it after, and every allocation is zeroed before it is freed. Off unless a batch
// asks (grader/batch/batch_warm_replays.h says why).
//
// Nothing a server does can cost a student: a request it cannot take (none free and no more may
// start, a server that ends or falls silent, a reply that is not one) is run as before, in a
// process of its own, which gives the verdict. A server that says its kernels could reach host
// memory (cudaDevAttrPageableMemoryAccess) is never used, and neither is any other after it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "process.h"

namespace labkit {

class WarmReplayPool {
 public:
  // `server`: the command that starts one server (the kit's replay program with
  // warm_replay::kServeOption, GpuUse::kTurns), run through `runner` (a GPU gate over a sandbox
  // that shows every submission's work folder); its request socket is added here. At most
  // `max_servers` run at once; `program_name` is the file name of the kit's replay program in a
  // replay's command line.
  WarmReplayPool(ProcessRunner& runner, Command server, int max_servers, std::string program_name);
  // Closes every server's requests and waits for them to end.
  ~WarmReplayPool();
  WarmReplayPool(const WarmReplayPool&) = delete;
  WarmReplayPool& operator=(const WarmReplayPool&) = delete;

  // Whether `command` is a replay a server runs as its own process would: the kit's replay program
  // with --replay, taking GPU turns, with no descriptor, lock or environment beyond a request's.
  bool Servable(const Command& command) const;
  // `command`'s result from a warm server; nullopt where it must run in a process of its own (not
  // Servable, or declined).
  std::optional<ProcessResult> Serve(const Command& command);

  struct Counts {
    int served = 0;    // replays a server answered
    int declined = 0;  // no server free, none could start, or the pool was off
    int failed = 0;    // a server ended or fell silent with a replay in hand
    int started = 0;   // servers started
  };
  Counts counts() const;

 private:
  struct Server;
  // A free server, one started for this request, or null.
  Server* Acquire();
  std::unique_ptr<Server> Start();
  // Back to the free ones, or, `retire`, told to end.
  void Release(Server* server, bool retire);

  ProcessRunner& runner_;
  const Command server_;
  const int max_servers_;
  const std::string program_name_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Server>> servers_;  // every server started, ended ones too
  int starting_ = 0;                              // servers being started now
  bool off_ = false;  // a server's kernels could reach host memory: none is used again
  Counts counts_;
};

// Runs the replays `pool` can serve there and every other command (and any replay it declines)
// through `inner`. A null pool serves nothing.
class WarmReplayRunner : public ProcessRunner {
 public:
  WarmReplayRunner(WarmReplayPool* pool, ProcessRunner& inner) : pool_(pool), inner_(inner) {}
  ProcessResult Run(const Command& command) override;

 private:
  WarmReplayPool* pool_;
  ProcessRunner& inner_;
};

}  // namespace labkit
