#include "untrusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace labkit {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kMissing = " does not exist";

std::string KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a plain file";
}

// Why `fd` (opened from `path`) may not be used, or "".
std::string NotRegular(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return path + ": cannot stat: " + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return path + " is not a regular file (" + KindOf(st.st_mode) + ")";
  return "";
}

std::string OpenError(const std::string& path, int error) {
  if (error == ENOENT) return path + kMissing;
  // O_DIRECTORY | O_NOFOLLOW on a link to a folder: ENOTDIR.
  struct stat st {};
  if (error == ENOTDIR && lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return path + " is a symbolic link (not followed)";
  // O_NOFOLLOW on a link: ELOOP (Linux), EMLINK (FreeBSD).
  if (error == ELOOP || error == EMLINK) return path + " is a symbolic link (not followed)";
  return path + ": cannot open: " + std::strerror(error);
}

std::string ParentOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

bool IsMissingFileError(const std::string& error) {
  const std::size_t n = std::strlen(kMissing);
  return error.size() >= n && error.compare(error.size() - n, n, kMissing) == 0;
}

Result<std::string> ReadUntrustedFile(const std::string& path, std::size_t max_bytes,
                                      double timeout_seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer that never comes.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return MakeError(OpenError(path, errno));
  auto fail = [&](std::string why) {
    close(fd);
    return MakeError(std::move(why));
  };
  if (std::string why = NotRegular(fd, path); !why.empty()) return fail(why);
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    if (Clock::now() > deadline)
      return fail(path + " could not be read within " + std::to_string(int(timeout_seconds)) +
                  " s");
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      return fail(path + ": read error: " + std::strerror(errno));
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
    // Checked while reading, not from the size: the file may grow while it is read.
    if (bytes.size() > max_bytes)
      return fail(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  close(fd);
  return bytes;
}

Status WriteUntrustedFile(const std::string& path, const std::string& bytes,
                          double timeout_seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  const std::string parent = ParentOf(path);
  const int dir = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return MakeError(OpenError(parent, errno));
  const std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  // Whatever is there goes (a directory stays, and the create below fails on it).
  if (unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT && errno != EISDIR) {
    const std::string why = std::strerror(errno);
    close(dir);
    return MakeError(path + ": cannot replace: " + why);
  }
  const int fd =
      openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  const int open_error = errno;
  close(dir);
  if (fd < 0) {
    if (open_error == EEXIST) return MakeError(path + " is in the way (something else is there)");
    return MakeError(OpenError(path, open_error));
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    if (Clock::now() > deadline) {
      close(fd);
      return MakeError(path + " could not be written within " +
                       std::to_string(int(timeout_seconds)) + " s");
    }
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      close(fd);
      return MakeError(path + ": write error: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (close(fd) != 0) return MakeError(path + ": write error: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace labkit
