#include "gpu_turn.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gpu_turns.h"

namespace labkit {
namespace {

[[noreturn]] void GateGone(const char* doing, int error) {
  throw std::runtime_error(std::string("the grader's GPU gate is gone (") + doing + ": " +
                           (error == 0 ? "closed" : std::strerror(error)) + ")");
}

}  // namespace

void GpuTurnClient::Take(GpuTurn turn) {
  if (fd_ < 0 || turn == held_) return;
  const char ask = turn == GpuTurn::kShared      ? gpu_turns::kAskShared
                   : turn == GpuTurn::kExclusive ? gpu_turns::kAskExclusive
                                                 : gpu_turns::kGiveBack;
  // MSG_NOSIGNAL: a gate that is gone is an error to report, not a SIGPIPE that ends the process.
  if (send(fd_, &ask, 1, MSG_NOSIGNAL) != 1) GateGone("asking", errno);
  held_ = GpuTurn::kNone;  // given back as asked, or waiting for the new turn
  if (turn == GpuTurn::kNone) return;
  char answer = 0;
  ssize_t got;
  do {
    got = recv(fd_, &answer, 1, 0);
  } while (got < 0 && errno == EINTR);
  if (got != 1 || answer != gpu_turns::kTurnGranted) GateGone("waiting", got < 0 ? errno : 0);
  held_ = turn;
}

GpuTurnClient& ProcessGpuTurns() {
  static GpuTurnClient turns = [] {
    const char* named = std::getenv(gpu_turns::kGpuTurnsVariable);
    const bool gated =
        named != nullptr && std::string(named) == std::to_string(gpu_turns::kGpuTurnDescriptor);
    return GpuTurnClient(gated ? gpu_turns::kGpuTurnDescriptor : -1);
  }();
  return turns;
}

ScopedGpuTurn::ScopedGpuTurn(GpuTurn turn) : previous_(ProcessGpuTurns().held()) {
  TakeGpuTurn(turn);
}

ScopedGpuTurn::~ScopedGpuTurn() {
  try {
    TakeGpuTurn(previous_);
  } catch (const std::runtime_error&) {
    // The gate is gone: the next turn asked for says so; a destructor must not throw.
  }
}

}  // namespace labkit
