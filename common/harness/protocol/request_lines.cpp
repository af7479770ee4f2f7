#include "request_lines.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace labkit {

namespace {

constexpr std::size_t kMaxCaseLineBytes = 1u << 20;

// The file at `path`, open for reading; throws when it cannot be.
int OpenCases(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

}  // namespace

std::string AbsolutePath(const std::string& path) {
  char cwd[4096];
  if (path.empty() || path.front() == '/' || ::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

CaseLines::CaseLines(const std::string& path) : path_(AbsolutePath(path)) {
  ::close(OpenCases(path_));  // a missing file is the kit's fault, said before any case runs
}

std::optional<nlohmann::json> CaseLines::Next() {
  const int fd = OpenCases(path_);
  std::string line;
  bool ended = false;
  std::string failure;
  while (failure.empty()) {
    // A byte a read: any larger read would bring the next case's text into this process early.
    // A case line is a few hundred bytes, so this costs well under a millisecond a case.
    char c;
    const ssize_t got = ::pread(fd, &c, 1, offset_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      failure = std::string("cannot read the cases: ") + std::strerror(errno);
      break;
    }
    if (got == 1) ++offset_;
    if (got == 0 || c == '\n') {
      ended = got == 0;
      if (line.empty() && !ended) continue;  // a blank line
      break;
    }
    if (line.size() == kMaxCaseLineBytes) failure = "a case line over 1 MiB";
    line.push_back(c);
  }
  ::close(fd);
  if (!failure.empty()) throw std::runtime_error(failure);
  if (line.empty() && ended) return std::nullopt;
  nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) throw std::runtime_error("a case line that is not a JSON object");
  return parsed;
}

}  // namespace labkit
