#include "user_processes.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace labkit {
namespace fs = std::filesystem;

bool StatusNamesUid(const std::string& status, uid_t uid) {
  std::istringstream lines(status);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream ids(line.substr(4));
    unsigned long id = 0;
    while (ids >> id)
      if (id == uid) return true;
    return false;
  }
  return false;
}

bool AnyProcessOfUser(uid_t uid) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    // The status file, not the folder's owner: a process that made itself non-dumpable has its
    // /proc folder owned by root.
    std::ifstream in(entry.path() / "status");
    std::ostringstream text;
    text << in.rdbuf();
    if (StatusNamesUid(text.str(), uid)) return true;
  }
  return false;
}

void KillAllOfUser(uid_t uid) {
  if (uid == 0) return;
  // kill(-1, ...) cannot tell whether anything was left: it succeeds whenever any other process
  // exists, even one it had no right to signal. So /proc is asked instead.
  const timespec pause{0, 2'000'000};
  for (int round = 0; round < 50 && AnyProcessOfUser(uid); ++round) {
    const pid_t killer = fork();
    if (killer < 0) return;
    if (killer == 0) {
      // Raw system calls: the child of a threaded process may only make async-signal-safe calls.
      if (syscall(SYS_setgroups, 0, nullptr) == 0 && syscall(SYS_setresgid, uid, uid, uid) == 0 &&
          syscall(SYS_setresuid, uid, uid, uid) == 0)
        kill(-1, SIGKILL);
      _exit(0);
    }
    waitpid(killer, nullptr, 0);
    nanosleep(&pause, nullptr);  // SIGKILL is delivered asynchronously
  }
}

}  // namespace labkit
