// Finding and killing every process of one user id. Where labgrade is root without bubblewrap,
// each sandboxed command runs under a user id of its own (sandbox_user.h); when the command ends,
// whatever it left running (a child that escaped its process group, a daemon) is found by that id.
#pragma once

#include <sys/types.h>

#include <string>

namespace labkit {

// Whether the "Uid:" line of a /proc/PID/status text names `uid` as its real, effective, saved or
// filesystem id: any of them lets a process of `uid` signal it, and its owner be called `uid`.
bool StatusNamesUid(const std::string& status, uid_t uid);

// Whether any process on the machine (zombies included) runs under `uid`, read from /proc.
bool AnyProcessOfUser(uid_t uid);

// Kills every process of `uid` (never root's): a child becomes that user and sends SIGKILL to all
// it may signal, which are exactly that user's processes. Repeated while any is left, up to
// 100 ms, since one caught inside fork() may leave a new child behind. Returns at once when the
// user has no processes, which is the usual case: a command that ended cleanly.
void KillAllOfUser(uid_t uid);

}  // namespace labkit
