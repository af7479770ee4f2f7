// The sandbox's fallback where bubblewrap is missing and labgrade runs as root (as on many GPU
// servers and containers): each command runs under a user id of its own, one that no account
// holds, so that student code cannot signal labgrade or another submission's processes, cannot
// write outside its scratch folder, and meets RLIMIT_NPROC (which never binds root). util-linux's
// setpriv makes the switch, put in front of the command.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace labkit {

struct SeparateUsers {
  bool ok = false;
  std::string why_not;  // when !ok: why commands keep labgrade's user
  std::string setpriv;  // its path
};

// Whether commands can run under ids of their own here: labgrade runs as root, setpriv is
// installed, and a fresh id can read `must_read` (the folders and files the commands read) and
// enter `must_enter` (folders it must pass through, such as the scratch folder's parent).
SeparateUsers CheckSeparateUsers(const std::vector<std::string>& must_read,
                                 const std::vector<std::string>& must_enter);

// A user (and group) id for the next command: from kFirstSandboxId up, never the same twice in one
// labgrade process and unlikely to meet another labgrade's (its pid picks the block).
uid_t NextSandboxId();
inline constexpr uid_t kFirstSandboxId = 1'600'000'000;

// What goes in front of a command's argv to run it as `id`: no supplementary groups, and no new
// privileges, so that a setuid program cannot take root back.
std::vector<std::string> RunAsPrefix(const SeparateUsers& users, uid_t id);

// Gives `dir` and everything in it to `id` (symbolic links are changed, never followed), so that
// the command can write where labgrade (root) or an earlier command made folders and files.
void GiveTreeTo(const std::string& dir, uid_t id);

}  // namespace labkit
