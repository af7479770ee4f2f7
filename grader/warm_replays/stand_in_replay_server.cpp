// A stand-in for the kit's replay program in --serve mode (warm_replay.h), for
// warm_replays_test.cpp: the real serving loop (common/harness/serve/replay_server.cpp) around
// requests that say what to do, so that labgrade's side of warm replays is tested without a GPU.
// A request file holds one word: "ok" (exit 0), "exit3" (exit 3), "sticky" (not reusable), "hang"
// or "crash". The response file gets this process's id and LABKIT_DEVICE_MEMORY_LIMIT as the
// request set it; "replay output" goes to stdout. STAND_IN_PAGEABLE=1: the ready line says
// kernels could reach host memory.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "replay_server.h"
#include "warm_replay.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) != labkit::warm_replay::kServeOption) return 2;
  const char* pageable = std::getenv("STAND_IN_PAGEABLE");
  const int reaches_host = pageable != nullptr && std::string(pageable) == "1";
  return labkit::ServeReplays(
      labkit::warm_replay::kServerDescriptor,
      {{"ready", true}, {"pageable_memory_access", reaches_host}},
      [](const std::string& request, const std::string& response) {
        std::string word;
        std::ifstream(request) >> word;
        std::cout << "replay output\n";
        if (word == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
        if (word == "crash") std::abort();
        const char* limit = std::getenv("LABKIT_DEVICE_MEMORY_LIMIT");
        std::ofstream(response) << getpid() << " " << (limit != nullptr ? limit : "unset") << "\n";
        labkit::ServedReply reply;
        reply.exit_code = word == "exit3" ? 3 : 0;
        reply.reusable = word != "sticky";
        return reply;
      });
}
