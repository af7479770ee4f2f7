// The resident memory of a process and of everything it started, read from /proc. The sandbox's
// memory limit where no memory cgroup can be had (docs/SANDBOX.md): SystemProcessRunner polls it
// and kills the whole tree above the limit. Resident size, never virtual size: a CUDA program
// reserves far more address space than it touches.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace labkit {

// Bytes resident from the text of /proc/PID/statm ("size resident shared ..." in pages); -1 when
// the text is not that.
long long ResidentBytesFromStatm(const std::string& statm, long long page_bytes);

// The proportional set size (Pss) in bytes from the text of /proc/PID/smaps_rollup ("Pss:  N kB"):
// resident memory with each shared page split among the processes that share it, so that the
// forked children of one program add up to what they really hold. -1 when the text has no Pss.
long long ProportionalBytesFromSmapsRollup(const std::string& smaps_rollup);

// The parent pid from the text of /proc/PID/stat; -1 when the text is not that. The command name
// in parentheses may itself hold spaces and ')', so the fields are counted from the last ')'.
pid_t ParentFromStat(const std::string& stat);

// `root` and all its descendants in `parent_of` (pid -> parent pid), root first.
std::vector<pid_t> ProcessTree(pid_t root, const std::map<pid_t, pid_t>& parent_of);

struct TreeMemory {
  // Summed over the processes: their Pss where the kernel gives one (4.14 and later), else their
  // resident size (shared pages then counted in each).
  long long resident_bytes = 0;
  std::vector<pid_t> pids;       // the processes measured, root first
};

// Measures `root`'s tree as it is now. A process that moved to another session is still in it; one
// whose parent died is not (it was handed to init), which is why the sandbox also has its PID
// namespace or cgroup.
TreeMemory MeasureProcessTree(pid_t root);

// Whether this machine lets labgrade read its own resident size (/proc mounted and readable).
bool CanMeasureResidentMemory();

}  // namespace labkit
