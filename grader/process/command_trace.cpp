#include "command_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace labkit {

double TraceClock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void TraceEvent(double seconds, double cpu_seconds, double started, const std::string& what) {
  const char* path = std::getenv("LABKIT_TRACE_COMMANDS");
  if (path == nullptr || *path == '\0') return;
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, "%.3f\t%.3f\t%.3f\t", seconds, cpu_seconds, started);
  std::string line = numbers + what;
  if (line.size() > 600) line.resize(600);
  line += "\n";
  // O_APPEND and one write per line keep the lines of parallel jobs whole.
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, line.data(), line.size()) < 0) {
    // Dropped: see the header.
  }
  close(fd);
}

}  // namespace labkit
