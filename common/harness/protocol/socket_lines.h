// Lines on a socket, as both ends of a warm replay server's requests use them (warm_replay.h):
// whole lines sent without SIGPIPE, and lines read with a bound on their length and, for labgrade,
// a deadline.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace labkit {

// Sends `line` and a newline; false when the other end is gone.
bool SendLine(int fd, const std::string& line);

class SocketLineReader {
 public:
  explicit SocketLineReader(int fd) : fd_(fd) {}
  // The next line without its newline; nullopt at the end of the stream, on a line over 64 KiB, or
  // once `deadline` (if given) has passed.
  std::optional<std::string> Next(
      std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

 private:
  int fd_;
  std::string unread_;  // bytes read past the last line
};

}  // namespace labkit
