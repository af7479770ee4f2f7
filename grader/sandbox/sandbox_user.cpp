#include "sandbox_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace labkit {
namespace fs = std::filesystem;

namespace {

// The first path of `paths` that `id` cannot open with `mode` (access(2) in a child that has
// become `id`), or "" when it can reach them all. A missing path is not checked.
std::string FirstClosedPath(uid_t id, const std::vector<std::string>& paths, int mode) {
  std::vector<std::string> existing;
  for (const std::string& p : paths)
    if (!p.empty() && access(p.c_str(), F_OK) == 0) existing.push_back(p);
  if (existing.empty()) return "";
  const pid_t child = fork();
  if (child < 0) return existing.front();
  if (child == 0) {
    // Raw system calls: the child of a threaded process may only make async-signal-safe calls.
    if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, id, id, id) != 0 ||
        syscall(SYS_setresuid, id, id, id) != 0)
      _exit(255);
    for (std::size_t i = 0; i < existing.size() && i < 254; ++i)
      if (access(existing[i].c_str(), mode) != 0) _exit(static_cast<int>(i) + 1);
    _exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return existing.front();
  const int code = WEXITSTATUS(status);
  if (code == 0) return "";
  if (code == 255) return existing.front();
  return existing[code - 1];
}

std::string FindSetpriv() {
  for (const char* path : {"/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"})
    if (access(path, X_OK) == 0) return path;
  return "";
}

}  // namespace

SeparateUsers CheckSeparateUsers(const std::vector<std::string>& must_read,
                                 const std::vector<std::string>& must_enter) {
  SeparateUsers users;
  if (geteuid() != 0) {
    users.why_not = "labgrade does not run as root";
    return users;
  }
  users.setpriv = FindSetpriv();
  if (users.setpriv.empty()) {
    users.why_not = "setpriv (util-linux) is not installed";
    return users;
  }
  if (FirstClosedPath(kFirstSandboxId, {"/"}, X_OK) == "/") {
    users.why_not = "cannot switch to user id " + std::to_string(kFirstSandboxId) +
                    " (a user namespace that maps fewer ids?)";
    return users;
  }
  if (const std::string closed = FirstClosedPath(kFirstSandboxId, must_read, R_OK);
      !closed.empty()) {
    users.why_not = "a user other than root cannot read " + closed;
    return users;
  }
  if (const std::string closed = FirstClosedPath(kFirstSandboxId, must_enter, X_OK);
      !closed.empty()) {
    users.why_not = "a user other than root cannot enter " + closed;
    return users;
  }
  users.ok = true;
  return users;
}

uid_t NextSandboxId() {
  static std::atomic<uid_t> next{kFirstSandboxId +
                                 static_cast<uid_t>(getpid() % 100000) * 1000};
  const uid_t id = next++;
  return id;
}

std::vector<std::string> RunAsPrefix(const SeparateUsers& users, uid_t id) {
  return {users.setpriv,
          "--reuid=" + std::to_string(id),
          "--regid=" + std::to_string(id),
          "--clear-groups",
          "--no-new-privs",
          "--"};
}

void GiveTreeTo(const std::string& dir, uid_t id) {
  if (lchown(dir.c_str(), id, id) != 0) return;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    lchown(it->path().c_str(), id, id);
}

}  // namespace labkit
