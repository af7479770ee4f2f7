// An exclusive flock(2) on a file, held while the object lives: one holder at a time across every
// process of the machine that locks the same path (a batch's jobs and concurrent test runs alike).
#pragma once

#include <string>

namespace labkit {

class ExclusiveFileLock {
 public:
  // Waits for the lock. If the file cannot be opened the lock is not held, and the caller goes
  // ahead unlocked: whatever clashes then reports its own error.
  explicit ExclusiveFileLock(const std::string& path);
  ~ExclusiveFileLock();
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace labkit
