#include "gpu_turn_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "command_trace.h"
#include "gpu_turns.h"

namespace labkit {

GpuTurnServer::GpuTurnServer(GpuGate& gate, std::size_t gpu, std::string label)
    : gate_(gate), gpu_(gpu), label_(std::move(label)) {
  int ends[2];
  // Close-on-exec: the other jobs' commands, started meanwhile, must not inherit either end; the
  // program's copy is put in place for it alone (Command::passed_descriptors).
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error_ = std::strerror(errno);
    return;
  }
  own_end_ = ends[0];
  program_end_ = ends[1];
  thread_ = std::thread([this] { Serve(); });
}

GpuTurnServer::~GpuTurnServer() {
  Finish();
  if (own_end_ >= 0) close(own_end_);
}

void GpuTurnServer::Finish() {
  if (program_end_ >= 0) {
    close(program_end_);  // the program has ended: the serving thread now reads the end of it
    program_end_ = -1;
  }
  if (thread_.joinable()) thread_.join();
}

void GpuTurnServer::Change(char asked) {
  if (asked == held_) return;
  if (held_ == gpu_turns::kAskExclusive)
    TraceEvent(TraceClock() - exclusive_since_, 0, exclusive_since_,
               "gpu held alone, timed turn: " + label_);
  if (held_ != 0) gate_.Leave(hold_, held_ == gpu_turns::kAskExclusive);
  held_ = 0;
  if (asked == gpu_turns::kGiveBack) return;
  const bool exclusive = asked == gpu_turns::kAskExclusive;
  const double since = TraceClock();
  hold_ = gate_.EnterOn(gpu_, exclusive);
  held_ = asked;
  const double now = TraceClock();
  if (exclusive) exclusive_since_ = now;
  if (now - since >= 0.01)
    TraceEvent(
        now - since, 0, since,
        std::string(exclusive ? "gpu gate wait, timed turn: " : "gpu gate wait, shared turn: ") +
            label_);
}

void GpuTurnServer::Serve() {
  for (;;) {
    char asked = 0;
    const ssize_t got = read(own_end_, &asked, 1);
    if (got < 0 && errno == EINTR) continue;
    // The program's end closed (it ended), or it wrote what no kit program writes: either way its
    // turn is over, and a program still waiting for a grant reads the end instead.
    if (got != 1 || (asked != gpu_turns::kAskShared && asked != gpu_turns::kAskExclusive &&
                     asked != gpu_turns::kGiveBack))
      break;
    Change(asked);
    if (asked == gpu_turns::kGiveBack) continue;
    const char granted = gpu_turns::kTurnGranted;
    if (send(own_end_, &granted, 1, MSG_NOSIGNAL) != 1) break;
  }
  Change(gpu_turns::kGiveBack);
  shutdown(own_end_, SHUT_RDWR);
}

}  // namespace labkit
