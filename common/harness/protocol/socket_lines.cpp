#include "socket_lines.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace labkit {
namespace {

// A line on these sockets is a few hundred bytes; anything far longer is not the other end's.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

}  // namespace

bool SendLine(int fd, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> SocketLineReader::Next(
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  for (;;) {
    if (const std::size_t end = unread_.find('\n'); end != std::string::npos) {
      std::string line = unread_.substr(0, end);
      unread_.erase(0, end + 1);
      return line;
    }
    if (unread_.size() > kMaxLineBytes) return std::nullopt;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            *deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return std::nullopt;
      pollfd readable{fd_, POLLIN, 0};
      const int ready = poll(&readable, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return std::nullopt;
    }
    char chunk[4096];
    const ssize_t got = read(fd_, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    unread_.append(chunk, static_cast<std::size_t>(got));
  }
}

}  // namespace labkit
