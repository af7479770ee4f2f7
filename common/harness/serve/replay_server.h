// The serving loop of a warm replay process (warm_replay.h): plain C++ and POSIX, so that its
// protocol, its deadline and its handling of each request's output are tested without a GPU
// (grader/warm_replays/warm_replays_test.cpp drives it through a stand-in server).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace labkit {

struct ServedReply {
  int exit_code = 0;     // what the request's own process would have exited with
  bool reusable = true;  // false: the process must not take another request (a sticky error)
};

// Runs one request, given its request and response paths, as `--replay` would in a process of its
// own, and puts the process back as it found it.
using ServeRequest =
    std::function<ServedReply(const std::string& request, const std::string& response)>;

// Writes `ready`, then serves the requests read from `fd` one at a time until labgrade closes it,
// a reply is not reusable, or warm_replay::kMaxRequestsPerServer were served. Each request's
// variables (warm_replay::kRequestEnvironment) are set or unset as it says; its stdout and stderr
// go to its "output" file, which must not exist yet; a request that overruns its "seconds" ends the
// process with kRequestOverranExitCode. Returns the process's exit status.
int ServeReplays(int fd, const nlohmann::json& ready, const ServeRequest& serve);

}  // namespace labkit
